#include "p2p_schedule.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "mpi_runtime.h"
#include "mpi_types.h"
#include "strata/sdk/error.h"

namespace strata::mpi {
namespace {

constexpr int kTag = 1;  // the communicator is private to the team: one tag serves

// Partial results of MEAN are sums; only the step that finishes divides.
strata_redop_t partial(strata_redop_t op) { return op == STRATA_MEAN ? STRATA_SUM : op; }

int bytes_of(uint64_t elements, size_t elem) { return static_cast<int>(elements * elem); }

// Out of place, the first reduction of a block reads the input and the
// received chunk and writes the output: one pass, as Open MPI's own ring
// does with its three-buffer operators (MPI_Reduce_local has only two). One
// clone per vector width, picked at load time, so the loop keeps up with
// Open MPI's AVX-512 operators. Only float SUM and PROD (MEAN sums first):
// their result does not depend on which operand comes first, so it is
// bitwise what MPI_Reduce_local would give; MIN, MAX and integers keep
// MPI's own rules.
#define STRATA_MPI_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

template <class T, class Op>
inline void combine_three(T* __restrict out, const T* __restrict x, const T* __restrict y,
                          uint64_t n, Op op) {
  for (uint64_t i = 0; i < n; ++i) out[i] = op(x[i], y[i]);
}

STRATA_MPI_VECTOR_CLONES void add_f32(float* out, const float* x, const float* y, uint64_t n) {
  combine_three(out, x, y, n, [](float a, float b) { return a + b; });
}
STRATA_MPI_VECTOR_CLONES void mul_f32(float* out, const float* x, const float* y, uint64_t n) {
  combine_three(out, x, y, n, [](float a, float b) { return a * b; });
}
STRATA_MPI_VECTOR_CLONES void add_f64(double* out, const double* x, const double* y, uint64_t n) {
  combine_three(out, x, y, n, [](double a, double b) { return a + b; });
}
STRATA_MPI_VECTOR_CLONES void mul_f64(double* out, const double* x, const double* y, uint64_t n) {
  combine_three(out, x, y, n, [](double a, double b) { return a * b; });
}

bool combine_in_one_pass(strata_dtype_t dtype, strata_redop_t op, void* dst, const void* a,
                         const void* b, uint64_t n) {
  const bool sum = op == STRATA_SUM || op == STRATA_MEAN;
  if (!sum && op != STRATA_PROD) return false;
  if (dtype == STRATA_F32) {
    auto* o = static_cast<float*>(dst);
    const auto* x = static_cast<const float*>(a);
    const auto* y = static_cast<const float*>(b);
    sum ? add_f32(o, x, y, n) : mul_f32(o, x, y, n);
    return true;
  }
  if (dtype == STRATA_F64) {
    auto* o = static_cast<double*>(dst);
    const auto* x = static_cast<const double*>(a);
    const auto* y = static_cast<const double*>(b);
    sum ? add_f64(o, x, y, n) : mul_f64(o, x, y, n);
    return true;
  }
  return false;
}

}  // namespace

void plan_recursive_doubling(const PlanInput& in, std::vector<Step>& steps) {
  steps.clear();
  const int p = in.size;
  const int r = in.rank;
  const int bytes = bytes_of(in.count, in.elem);
  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  const int rem = p - pof2;
  const void* cur = in.in;  // what this rank holds so far
  auto combine = [&](Step& s, bool last) {
    s.dst = in.out;
    s.a = cur;
    s.b = in.tmp;
    s.count = in.count;
    s.op = last ? in.op : partial(in.op);
    cur = in.out;
  };
  int vrank = r - rem;  // rank among the pof2 that exchange
  if (r < 2 * rem) {
    if (r % 2 == 0) {  // hands its data to r + 1 and waits for the result
      steps.push_back({.send_to = r + 1, .send_buf = in.in, .send_bytes = bytes});
      steps.push_back({.recv_from = r + 1, .recv_buf = in.out, .recv_bytes = bytes});
      return;
    }
    Step fold{.recv_from = r - 1, .recv_buf = in.tmp, .recv_bytes = bytes};
    combine(fold, /*last=*/false);
    steps.push_back(fold);
    vrank = r / 2;
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int vpeer = vrank ^ mask;
    const int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
    Step s{.recv_from = peer, .recv_buf = in.tmp, .recv_bytes = bytes,
           .send_to = peer, .send_buf = cur, .send_bytes = bytes};
    combine(s, /*last=*/mask * 2 >= pof2);
    steps.push_back(s);
  }
  if (r < 2 * rem) steps.push_back({.send_to = r - 1, .send_buf = in.out, .send_bytes = bytes});
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

ScheduleOperation::ScheduleOperation(Comm& comm, const strata_call_t& call, Kind kind,
                                     uint64_t chunk_bytes)
    : MpiOperation(comm, call),
      steps_(comm.plan()),
      type_(datatype_of(call.desc->dtype)),
      op_(op_of(call.desc->dtype, call.desc->redop)) {
  steps_.clear();
  if (count() == 0) return;
  PlanInput plan;
  plan.rank = rank();
  plan.size = size();
  plan.in = in();
  plan.out = out();
  plan.count = count();
  plan.elem = elem();
  plan.op = desc().redop;
  if (kind == Kind::kRing) {
    plan.chunk_elements = chunk_bytes == 0 ? 0 : std::max<uint64_t>(1, chunk_bytes / elem());
    plan.tmp = this->comm().scratch(
        ring_scratch_bytes(count(), elem(), size(), plan.chunk_elements));
    plan_ring(plan, steps_);
  } else {
    plan.tmp = this->comm().scratch(count() * elem());
    plan_recursive_doubling(plan, steps_);
  }
}

void ScheduleOperation::start() { progress(); }

void ScheduleOperation::post_step(size_t index) {
  const Step& step = steps_[index];
  Pending& slot = pending_[index % 2];
  slot.count = 0;
  const MPI_Comm c = comm().handle();
  // Messages are built only on failure: this runs once per step of every call.
  if (step.recv_from >= 0) {
    const int rc = MPI_Irecv(step.recv_buf, step.recv_bytes, MPI_BYTE, step.recv_from, kTag, c,
                             &slot.requests[slot.count++]);
    if (rc != MPI_SUCCESS) check_mpi(rc, "MPI_Irecv from rank " + std::to_string(step.recv_from));
  }
  if (step.send_to >= 0) {
    const int rc = MPI_Isend(step.send_buf, step.send_bytes, MPI_BYTE, step.send_to, kTag, c,
                             &slot.requests[slot.count++]);
    if (rc != MPI_SUCCESS) check_mpi(rc, "MPI_Isend to rank " + std::to_string(step.send_to));
  }
  posted_ = index + 1;
}
// dst = a (op) b. In place (a is dst) MPI_Reduce_local, which updates its
// second buffer; out of place in one pass where that is exact, else a is
// copied to dst and reduced there as in place.
void ScheduleOperation::combine(const Step& step) {
  if (step.dst == step.a ||
      !combine_in_one_pass(desc().dtype, step.op, step.dst, step.a, step.b, step.count)) {
    if (step.dst != step.a) std::memcpy(step.dst, step.a, step.count * elem());
    check_mpi(MPI_Reduce_local(step.b, step.dst, mpi_count(step.count), type_, op_),
              "MPI_Reduce_local");
  }
  if (step.op == STRATA_MEAN) {
    divide_in_place(desc().dtype, step.dst, step.count, static_cast<uint32_t>(size()));
  }
}

// Steps run in order, but the next step's messages go out before this
// step's reduction whenever they do not touch what it reads or writes, so
// the wire and the peer stay busy while this rank reduces (MPI keeps
// messages between two ranks in order, so early posting cannot mismatch).
bool ScheduleOperation::progress() {
  while (next_ < steps_.size()) {
    if (posted_ == next_) post_step(next_);
    Pending& slot = pending_[next_ % 2];
    int flag = 0;
    check_mpi(MPI_Testall(slot.count, slot.requests, &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (flag == 0) return false;
    const Step& step = steps_[next_];
    if (posted_ == next_ + 1 && posted_ < steps_.size() &&
        can_post_early(steps_[posted_], step, elem())) {
      post_step(posted_);
    }
    if (step.dst != nullptr) combine(step);
    ++next_;
  }
  return true;
}

}  // namespace strata::mpi
