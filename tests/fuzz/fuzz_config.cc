// Fuzz target: the YAML config (core/config/config.h, parse_config). Any
// text must give a Config or an INVALID_ARGUMENT that names the file, never
// a crash, a hang or the INTERNAL backstop (which means a yaml-cpp call
// threw where the reader promises none does).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/config/config.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Relative paths in the config (plugins.path, collectives.tuning) are
  // taken against the config's directory; one that cannot exist keeps the
  // fuzzer from reading files of the machine it runs on.
  const std::string source = "/nonexistent-strata-fuzz/fuzz.yaml";
  strata::StatusOr<strata::Config> config = strata::parse_config(text, source);
  if (config.ok()) return 0;
  const strata::Status& s = config.status();
  STRATA_FUZZ_CHECK(s.code() != strata::Code::kInternal, s.to_string());
  STRATA_FUZZ_CHECK(s.message().find(source) != std::string::npos, s.to_string());
  return 0;
}
