// TF's hierarchical split of the local devices: group 0 is [0, half) and
// group 1 is [half, n), half = ceil(n / 2); on an 8-GPU DGX-1 those are the
// two NVLink islands. Each group has an aggregation root that rotates with
// the call sequence, so no device is always the busiest. Every hierarchical
// algorithm shares this split so that one call shape always maps the same
// replicas to the same roles on every rank (selection and scheduling must be
// deterministic).
#ifndef STRATA_PLUGINS_HIERARCHICAL_COPY_DEVICE_GROUPS_H_
#define STRATA_PLUGINS_HIERARCHICAL_COPY_DEVICE_GROUPS_H_

#include <array>
#include <cstdint>

namespace strata::hierarchical_copy {

struct DeviceGroups {
  std::array<int, 2> begin{};
  std::array<int, 2> end{};
  std::array<int, 2> root{};  // -1 for an empty group (n == 1)

  // The split of n >= 1 replicas for the call with this sequence number.
  static DeviceGroups of(int n, uint64_t sequence) {
    DeviceGroups g;
    const int half = (n + 1) / 2;
    g.begin = {0, half};
    g.end = {half, n};
    for (int i = 0; i < 2; ++i) {
      const auto size = static_cast<uint64_t>(g.size(i));
      g.root[i] = size == 0 ? -1 : g.begin[i] + static_cast<int>(sequence % size);
    }
    return g;
  }

  int size(int group) const { return end[group] - begin[group]; }
  int group_of(int replica) const { return replica < begin[1] ? 0 : 1; }
  // Makes `replica` the root of its own group: broadcast and reduce aggregate
  // at the call's root, so it leads its group instead of a rotating root.
  void lead_with(int replica) { root[group_of(replica)] = replica; }
};

}  // namespace strata::hierarchical_copy

#endif  // STRATA_PLUGINS_HIERARCHICAL_COPY_DEVICE_GROUPS_H_
