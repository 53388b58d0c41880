// The all_reduce plans of p2p_schedule.h: which messages each step moves
// and which reduction follows it. Pure functions of PlanInput, so
// tests/mpi/mpi_plan_test.cc runs them for every team size in a simulator.
#include <algorithm>
#include <cstddef>

#include "p2p_schedule.h"

namespace strata::mpi {
namespace {

// Partial results of MEAN are sums; only the step that finishes divides.
strata_redop_t partial(strata_redop_t op) { return op == STRATA_MEAN ? STRATA_SUM : op; }

int bytes_of(uint64_t elements, size_t elem) { return static_cast<int>(elements * elem); }

// Teams that are not a power of two fold in, as Open MPI's plans do: of the
// first 2 * rem ranks each even one hands its input to the odd one above it
// and sits out until the result comes back, so that pof2 ranks exchange.
struct Fold {
  int pof2 = 1;
  int rem = 0;
  int vrank = -1;  // rank among the pof2 that exchange; -1: this rank sits out
  int real(int v) const { return v < rem ? v * 2 + 1 : v + rem; }
};

// Appends the steps that fold this rank in (a rank that sits out gets all of
// its steps here); `cur` becomes what the rank holds afterwards.
Fold fold_in(const PlanInput& in, std::vector<Step>& steps, const void*& cur) {
  Fold f;
  while (f.pof2 * 2 <= in.size) f.pof2 *= 2;
  f.rem = in.size - f.pof2;
  const int r = in.rank;
  const int bytes = bytes_of(in.count, in.elem);
  f.vrank = r - f.rem;
  if (r < 2 * f.rem) {
    if (r % 2 == 0) {
      steps.push_back({.send_to = r + 1, .send_buf = in.in, .send_bytes = bytes});
      steps.push_back({.recv_from = r + 1, .recv_buf = in.out, .recv_bytes = bytes});
      f.vrank = -1;
      return f;
    }
    steps.push_back({.recv_from = r - 1, .recv_buf = in.tmp, .recv_bytes = bytes,
                     .dst = in.out, .a = in.in, .b = in.tmp, .count = in.count,
                     .op = partial(in.op)});
    cur = in.out;
    f.vrank = r / 2;
  }
  return f;
}

// The result back to the rank that sat out.
void fold_out(const PlanInput& in, const Fold& f, std::vector<Step>& steps) {
  if (in.rank < 2 * f.rem) {
    steps.push_back({.send_to = in.rank - 1, .send_buf = in.out,
                     .send_bytes = bytes_of(in.count, in.elem)});
  }
}

}  // namespace

void plan_recursive_doubling(const PlanInput& in, std::vector<Step>& steps) {
  steps.clear();
  const int bytes = bytes_of(in.count, in.elem);
  const void* cur = in.in;  // what this rank holds so far
  const Fold f = fold_in(in, steps, cur);
  if (f.vrank < 0) return;
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const int peer = f.real(f.vrank ^ mask);
    steps.push_back({.recv_from = peer, .recv_buf = in.tmp, .recv_bytes = bytes,
                     .send_to = peer, .send_buf = cur, .send_bytes = bytes,
                     .dst = in.out, .a = cur, .b = in.tmp, .count = in.count,
                     .op = mask * 2 >= f.pof2 ? in.op : partial(in.op)});
    cur = in.out;
  }
  fold_out(in, f, steps);
}

uint64_t ring_block_elements(uint64_t count, int size) {
  const auto p = static_cast<uint64_t>(size);
  return count / p + (count % p != 0 ? 1 : 0);
}

uint64_t ring_scratch_bytes(uint64_t count, size_t elem, int size, uint64_t chunk_elements) {
  const uint64_t block = ring_block_elements(count, size);
  if (chunk_elements == 0 || block <= chunk_elements) return block * elem;
  return 2 * chunk_elements * elem;  // two slots: one lands while the other is reduced
}

bool can_post_early(const Step& next, const Step& current, size_t elem) {
  if (current.dst == nullptr) return true;  // nothing to reduce: nothing to race with
  auto overlap = [](const void* p, uint64_t n, const void* q, uint64_t m) {
    const auto* a = static_cast<const std::byte*>(p);
    const auto* b = static_cast<const std::byte*>(q);
    return n != 0 && m != 0 && a < b + m && b < a + n;
  };
  const uint64_t bytes = current.count * elem;
  if (next.send_to >= 0 && overlap(next.send_buf, static_cast<uint64_t>(next.send_bytes),
                                   current.dst, bytes)) {
    return false;  // it sends what this step is about to compute
  }
  if (next.recv_from >= 0) {
    const auto n = static_cast<uint64_t>(next.recv_bytes);
    if (overlap(next.recv_buf, n, current.dst, bytes) ||
        overlap(next.recv_buf, n, current.a, bytes) ||
        overlap(next.recv_buf, n, current.b, bytes)) {
      return false;  // it would land on what this step reads or writes
    }
  }
  return true;
}

void plan_ring(const PlanInput& in, std::vector<Step>& steps) {
  steps.clear();
  const int p = in.size;
  const int r = in.rank;
  const uint64_t base = in.count / static_cast<uint64_t>(p);
  const uint64_t extra = in.count % static_cast<uint64_t>(p);
  auto block = [&](int b) { return (b % p + p) % p; };
  auto offset = [&](int b) {
    const auto u = static_cast<uint64_t>(block(b));
    return (u * base + std::min(u, extra)) * in.elem;
  };
  auto elements = [&](int b) { return base + (static_cast<uint64_t>(block(b)) < extra ? 1 : 0); };
  // A block travels in chunks, so that each received chunk is reduced while
  // it is still in cache; chunking depends only on the block's size, so the
  // sender's and the receiver's chunks match.
  const uint64_t chunk = in.chunk_elements == 0 ? base + 1 : in.chunk_elements;
  // Chunks alternate between two scratch slots when a block has several, so
  // the next chunk can land while this one is reduced (can_post_early).
  const bool two_slots = in.chunk_elements != 0 && ring_block_elements(in.count, p) > chunk;
  auto* slots = static_cast<std::byte*>(in.tmp);
  uint64_t chunk_index = 0;
  auto chunks = [&](int b) { return elements(b) == 0 ? 0 : (elements(b) + chunk - 1) / chunk; };
  auto chunk_len = [&](int b, uint64_t c) { return std::min(chunk, elements(b) - c * chunk); };
  const auto* src = static_cast<const std::byte*>(in.in);
  auto* out = static_cast<std::byte*>(in.out);
  const int right = block(r + 1);
  const int left = block(r - 1);
  // Reduce-scatter: the partial of block r - s - 1 arrives from the left and
  // gains this rank's contribution; after p - 1 steps block r + 1 is final.
  for (int s = 0; s < p - 1; ++s) {
    const int sb = r - s;
    const int rb = r - s - 1;
    const std::byte* from = (s == 0 ? src : out) + offset(sb);
    for (uint64_t c = 0; c < std::max(chunks(sb), chunks(rb)); ++c) {
      Step st;
      if (c < chunks(rb)) {
        const uint64_t at = c * chunk * in.elem;
        void* slot = slots + (two_slots && chunk_index++ % 2 == 1 ? chunk * in.elem : 0);
        st.recv_from = left;
        st.recv_buf = slot;
        st.recv_bytes = bytes_of(chunk_len(rb, c), in.elem);
        st.dst = out + offset(rb) + at;
        st.a = src + offset(rb) + at;  // aliases dst in place: allowed for the first source
        st.b = slot;
        st.count = chunk_len(rb, c);
        st.op = s == p - 2 ? in.op : partial(in.op);
      }
      if (c < chunks(sb)) {
        st.send_to = right;
        st.send_buf = from + c * chunk * in.elem;
        st.send_bytes = bytes_of(chunk_len(sb, c), in.elem);
      }
      steps.push_back(st);
    }
  }
  // All-gather: pass the final blocks around, straight into the output.
  for (int t = 0; t < p - 1; ++t) {
    const int sb = r + 1 - t;
    const int rb = r - t;
    steps.push_back({.recv_from = left, .recv_buf = out + offset(rb),
                     .recv_bytes = bytes_of(elements(rb), in.elem), .send_to = right,
                     .send_buf = out + offset(sb), .send_bytes = bytes_of(elements(sb), in.elem)});
  }
}

void plan_halving_doubling(const PlanInput& in, std::vector<Step>& steps) {
  steps.clear();
  const void* cur = in.in;
  const Fold f = fold_in(in, steps, cur);
  if (f.vrank < 0) return;
  const int pof2 = f.pof2;
  const int vrank = f.vrank;
  // pof2 blocks as the ring cuts them: the first count % pof2 one longer.
  const uint64_t base = in.count / static_cast<uint64_t>(pof2);
  const uint64_t extra = in.count % static_cast<uint64_t>(pof2);
  auto offset = [&](int b) {
    const auto u = static_cast<uint64_t>(b);
    return u * base + std::min(u, extra);
  };
  auto* out = static_cast<std::byte*>(in.out);
  // Reduce-scatter by recursive halving: each step keeps half of the window
  // of blocks this rank still reduces, sends the other half to the partner
  // across the next bit, and adds the partner's copy of the kept half; the
  // window ends as one block, final here only. Partners near first (bit 0
  // up), as Open MPI's own: with 4 ranks on 2 cores that order ran 1.01-1.03x
  // raw MPI_Allreduce at 1-4 MiB, far bits first 0.98-1.14x.
  int lo = 0;
  int len = pof2;
  for (int mask = 1; mask < pof2; mask *= 2) {
    const int half = len / 2;
    const bool keep_low = (vrank & mask) == 0;
    const int keep = keep_low ? lo : lo + half;
    const int give = keep_low ? lo + half : lo;
    const uint64_t kept = offset(keep + half) - offset(keep);
    const uint64_t given = offset(give + half) - offset(give);
    const auto* source = static_cast<const std::byte*>(cur);
    steps.push_back({.recv_from = f.real(vrank ^ mask), .recv_buf = in.tmp,
                     .recv_bytes = bytes_of(kept, in.elem), .send_to = f.real(vrank ^ mask),
                     .send_buf = source + offset(give) * in.elem,
                     .send_bytes = bytes_of(given, in.elem),
                     .dst = out + offset(keep) * in.elem,
                     .a = source + offset(keep) * in.elem, .b = in.tmp, .count = kept,
                     .op = mask == pof2 / 2 ? in.op : partial(in.op)});
    cur = in.out;
    lo = keep;
    len = half;
  }
  // All-gather by recursive doubling, undoing the halvings in reverse: the
  // window doubles each step, the partner's half arriving straight into the
  // output.
  for (int mask = pof2 / 2; mask >= 1; mask /= 2) {
    const bool low = (vrank & mask) == 0;
    const int theirs = low ? lo + len : lo - len;
    steps.push_back({.recv_from = f.real(vrank ^ mask),
                     .recv_buf = out + offset(theirs) * in.elem,
                     .recv_bytes = bytes_of(offset(theirs + len) - offset(theirs), in.elem),
                     .send_to = f.real(vrank ^ mask), .send_buf = out + offset(lo) * in.elem,
                     .send_bytes = bytes_of(offset(lo + len) - offset(lo), in.elem)});
    lo = std::min(lo, theirs);
    len *= 2;
  }
  fold_out(in, f, steps);
}

}  // namespace strata::mpi
