// Fuzz target: TF_CONFIG (core/cluster/resolvers/tf_config_resolver.h,
// parse_tf_config). Any text must give a ClusterSpec whose addresses hold no
// NUL byte, or an INVALID_ARGUMENT starting "TF_CONFIG"; through the
// resolver (blank = NOT_SUPPORTED) the same. ClusterSpec::validate, which
// resolve_cluster runs next, must name TF_CONFIG when it refuses.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/cluster/resolvers/map_environment.h"
#include "core/cluster/resolvers/tf_config_resolver.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void check_spec(const strata::ClusterSpec& spec) {
  for (const auto& [job, addresses] : spec.jobs) {
    for (const std::string& address : addresses) {
      STRATA_FUZZ_CHECK(address.find('\0') == std::string::npos, job + ": " + address);
    }
  }
  // resolve_cluster validates what a resolver found (duplicate addresses,
  // ...); a refusal names TF_CONFIG too. Past it, what every process of the
  // job derives from the spec must be in range.
  const strata::Status valid = spec.validate();
  if (!valid.ok()) {
    STRATA_FUZZ_CHECK(valid.message().find("TF_CONFIG") != std::string::npos, valid.to_string());
    return;
  }
  if (spec.rank()) {
    STRATA_FUZZ_CHECK(*spec.rank() >= 0 && *spec.rank() < spec.world_size(), spec.to_string());
    (void)spec.address_of_rank(*spec.rank());
    (void)spec.task_name_of_rank(*spec.rank());
  }
  (void)spec.chief_address();
}

void check_error(const strata::Status& s) {
  STRATA_FUZZ_CHECK(s.code() == strata::Code::kInvalidArgument, s.to_string());
  STRATA_FUZZ_CHECK(s.message().rfind("TF_CONFIG", 0) == 0, s.to_string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  strata::StatusOr<strata::ClusterSpec> spec = strata::parse_tf_config(text);
  if (spec.ok()) {
    check_spec(*spec);
  } else {
    check_error(spec.status());
  }
  // The resolver reads the variable (trimmed; blank means unset).
  auto env = std::make_shared<strata::MapEnvironment>();
  env->set("TF_CONFIG", text);
  strata::StatusOr<strata::ClusterSpec> resolved = strata::TfConfigResolver(env).describe();
  if (resolved.ok()) {
    check_spec(*resolved);
  } else if (resolved.status().code() != strata::Code::kNotSupported) {
    check_error(resolved.status());
  }
  return 0;
}
