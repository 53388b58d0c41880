// The algorithms the hierarchical_copy plugin registers, as the tests know
// them. A test checks this list against the registry, so an algorithm added
// to the plugin without being added here (and so without being tested)
// fails the suite.
#ifndef STRATA_TESTS_HIERARCHICAL_COPY_HIERARCHICAL_COPY_IDS_H_
#define STRATA_TESTS_HIERARCHICAL_COPY_HIERARCHICAL_COPY_IDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"

namespace strata::testing {

inline constexpr std::string_view kBarrierId = "hierarchical_copy/barrier/stream_events";

// Every algorithm that moves data, i.e. all but the barrier.
inline std::vector<std::string> data_algorithm_ids() {
  return {
      "hierarchical_copy/all_reduce/hierarchical",
      "hierarchical_copy/all_reduce/reduction_to_one_device",
      "hierarchical_copy/all_reduce/scatter_reduce",
      "hierarchical_copy/broadcast/hierarchical",
      "hierarchical_copy/broadcast/one_device",
      "hierarchical_copy/broadcast/peer_pull",
      "hierarchical_copy/all_gather/hierarchical",
      "hierarchical_copy/all_gather/one_device",
      "hierarchical_copy/all_gather/peer_pull",
      "hierarchical_copy/reduce_scatter/hierarchical",
      "hierarchical_copy/reduce_scatter/one_device",
      "hierarchical_copy/reduce_scatter/peer_slices",
      "hierarchical_copy/reduce/hierarchical",
      "hierarchical_copy/reduce/one_device",
      "hierarchical_copy/reduce/peer_slices",
  };
}

// The op of "plugin/op/name".
inline CollectiveKind kind_of(std::string_view id) {
  const size_t a = id.find('/') + 1;
  auto kind = parse_collective(id.substr(a, id.find('/', a) - a));
  return kind.ok() ? *kind : CollectiveKind::kBarrier;
}

// Algorithms that read or write peers directly and decline without access.
inline bool needs_peers(std::string_view id) {
  return id.ends_with("/scatter_reduce") || id.ends_with("/peer_slices");
}

}  // namespace strata::testing

#endif  // STRATA_TESTS_HIERARCHICAL_COPY_HIERARCHICAL_COPY_IDS_H_
