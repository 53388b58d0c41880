// What the fuzz targets assert besides "no sanitizer report": properties
// every input must keep (an error names its source, an accepted value
// re-encodes to the bytes it came from). A broken property aborts, which
// libFuzzer records as a crash with the input that caused it.
#ifndef STRATA_TESTS_FUZZ_FUZZ_CHECK_H_
#define STRATA_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace strata::fuzz {

[[noreturn]] inline void check_failed(const char* file, int line, const char* condition,
                                      std::string_view detail) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n  %.*s\n", file, line, condition,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace strata::fuzz

// `detail` (a string) is only built when the check fails.
#define STRATA_FUZZ_CHECK(condition, detail)                                    \
  do {                                                                          \
    if (!(condition)) ::strata::fuzz::check_failed(__FILE__, __LINE__, #condition, (detail)); \
  } while (false)

#endif  // STRATA_TESTS_FUZZ_FUZZ_CHECK_H_
