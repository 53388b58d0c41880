// Turns what the loaded plugins registered into GoogleTest cases at run
// time: nothing about an algorithm is compiled into the suite, so a plugin
// (or a new algorithm in an in-tree plugin) is tested the moment it exists.
#ifndef STRATA_SDK_CONFORMANCE_REGISTRATION_H_
#define STRATA_SDK_CONFORMANCE_REGISTRATION_H_

#include <ostream>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "sdk/conformance/collective_case.h"
#include "sdk/conformance/report.h"

namespace strata::conformance {

struct Registered {
  size_t tests = 0;
  size_t matched = 0;                   // algorithms selected, run or skipped
  std::vector<std::string> algorithms;  // ids with at least one test
  std::vector<int> world_sizes;         // after dropping those above the device count
};

// Registers, for every plugin of `plugins` (plugin names), the rule-1 test
// of its exports (suite: the plugin's name); and for every algorithm of
// theirs that matches the --algorithm globs, per world size, its estimate
// check (when it has an estimate) and one test per (count, dtype,
// operator, in place or not). Tells `report` about every algorithm,
// including those skipped because they need more than one process. Notes
// for the user go to `log`. Fails when no algorithm matches at all.
StatusOr<Registered> register_tests(Suite& suite, Report& report,
                                    const std::vector<std::string>& plugins, std::ostream& log);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_REGISTRATION_H_
