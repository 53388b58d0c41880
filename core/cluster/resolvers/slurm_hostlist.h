// Slurm's compact lists, expanded the way Slurm expands them:
//   host lists      "node[01-04,07],gpu[1-2]-ib[0-1],login"
//   tasks per node  "2(x3),1"  (SLURM_TASKS_PER_NODE: 2 tasks on each of 3
//                               nodes, then 1)
// Errors quote the text at fault; callers prefix the variable's name.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_SLURM_HOSTLIST_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_SLURM_HOSTLIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"

namespace strata {

// Past this many hosts (or tasks) a list is refused rather than expanded:
// a typo such as node[1-1000000000] must not eat the machine's memory.
inline constexpr size_t kMaxSlurmHosts = 65536;

// Comma-separated names, each with any number of bracket groups; a group is
// a comma list of numbers and ranges ("01-04"). A range keeps the width of
// its first number, zero padded ("[08-10]" -> 08 09 10, "[8-10]" -> 8 9 10).
// Several groups multiply, the first one outermost: "r[1-2]n[1-2]" ->
// r1n1 r1n2 r2n1 r2n2.
StatusOr<std::vector<std::string>> expand_slurm_hostlist(std::string_view text);

// "2(x3),1" -> {2, 2, 2, 1}. Every count is at least 1.
StatusOr<std::vector<int>> expand_slurm_tasks_per_node(std::string_view text);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_SLURM_HOSTLIST_H_
