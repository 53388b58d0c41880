// The two ring primitives the torus algorithms are built of. Both pull: at
// step s every member waits for its predecessor's signal from step s-1,
// copies one part over the link into its own memory, and (reduce-scatter)
// folds it into its output; then every member signals. So the k rings of a
// phase, and all members of a ring, move at once, one link message per
// ring edge per step, which is what the cost model prices.
#include <vector>

#include "torus_operation.h"

namespace strata::tpu_sim {

void TorusOperation::ring_reduce_scatter(const std::vector<int>& ring, Range whole,
                                         bool partials, bool final) {
  const int k = static_cast<int>(ring.size());
  auto first = [&](int r) { return partials ? out(r) : in(r); };
  if (k < 2) return;
  for (int s = 0; s + 1 < k; ++s) {
    for (int i = 0; i < k; ++i) {
      const int m = ring[static_cast<size_t>(i)];
      const int from = ring[static_cast<size_t>((i + k - 1) % k)];
      // The predecessor forwards the part it folded in at the step before
      // (its own data at step 0); m's own share of that part is untouched
      // until now, since every part reaches a member once per phase.
      const Range part = slice(whole, elem(), ((i - 1 - s) % k + k) % k, k);
      if (part.count == 0) continue;
      const uint64_t off = part.begin * elem();
      const uint64_t bytes = part.count * elem();
      const char* sent = (s == 0 ? first(from) : out(from)) + off;
      char* landed = scratch(m, count() * elem()) + off;
      wait_for(m, from);
      pull(m, landed, sent, from, bytes);
      const void* srcs[2] = {first(m) + off, landed};
      reduce(m, out(m) + off, srcs, part.count, final && s + 2 == k);
    }
    for (int m : ring) signal(m);
  }
}

void TorusOperation::ring_all_gather(const std::vector<int>& ring, int shift,
                                     const std::function<std::vector<Range>(int)>& parts) {
  const int k = static_cast<int>(ring.size());
  if (k < 2) return;
  for (int s = 0; s + 1 < k; ++s) {
    for (int i = 0; i < k; ++i) {
      const int m = ring[static_cast<size_t>(i)];
      const int from = ring[static_cast<size_t>((i + k - 1) % k)];
      // What the predecessor started with (s == 0) or received at s-1.
      const int p = ((i - 1 + shift - s) % k + k) % k;
      wait_for(m, from);
      for (const Range& r : parts(p)) {
        const uint64_t off = r.begin * elem();
        pull(m, out(m) + off, out(from) + off, from, r.count * elem());
      }
    }
    for (int m : ring) signal(m);
  }
}

}  // namespace strata::tpu_sim
