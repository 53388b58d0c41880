#include "p2p_schedule.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "mpi_runtime.h"
#include "mpi_types.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host_copy.h"

namespace strata::mpi {
namespace {

constexpr int kTag = 1;  // the communicator is private to the team: one tag serves

// Out of place, the first reduction of a block reads the input and the
// received chunk and writes the output: one pass, as Open MPI's own ring
// does with its three-buffer operators (MPI_Reduce_local has only two). One
// clone per vector width, picked at load time, so the loop keeps up with
// Open MPI's AVX-512 operators. Only float SUM and PROD (MEAN sums first):
// their result does not depend on which operand comes first, so it is
// bitwise what MPI_Reduce_local would give; MIN, MAX and integers keep
// MPI's own rules. In place as well: MPI_Reduce_local reaches its operator
// through Open MPI's op and datatype tables, cache misses for a rank that
// was just switched in (7% of the cycles of 8 B calls on a shared core;
// docs/performance/mpi_per_call.md).
#define STRATA_MPI_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// Unrolled four times so that the loop's speed does not hang on where the
// build happens to place it: rolled, its AVX2 body is 24 bytes, and where
// it straddled a 64-byte line (the non-unity build) it spent 1.1-1.4x the
// samples of Open MPI's operator on the same bytes, 0.9x where it sat
// inside one (unity build): 2-4% of a 1-8 MiB all-reduce at 2 ranks
// (docs/performance/mpi_tuning.md, "Where the build puts the reduction loop").
template <class T, class Op>
inline void combine_three(T* __restrict out, const T* __restrict x, const T* __restrict y,
                          uint64_t n, Op op) {
#pragma GCC unroll 4
  for (uint64_t i = 0; i < n; ++i) out[i] = op(x[i], y[i]);
}
template <class T, class Op>
inline void combine_into(T* __restrict out, const T* __restrict y, uint64_t n, Op op) {
#pragma GCC unroll 4
  for (uint64_t i = 0; i < n; ++i) out[i] = op(out[i], y[i]);
}

// `x` null: out (op)= y. Kept apart from the three-buffer loop so that each
// stays free of aliasing (the scratch `y` never overlaps `out`).
#define STRATA_MPI_KERNEL(name, T, expr)                                                  \
  STRATA_MPI_VECTOR_CLONES void name(T* out, const T* x, const T* y, uint64_t n) {        \
    auto op = [](T a, T b) { return expr; };                                              \
    x == nullptr ? combine_into(out, y, n, op) : combine_three(out, x, y, n, op);         \
  }
STRATA_MPI_KERNEL(add_f32, float, a + b)
STRATA_MPI_KERNEL(mul_f32, float, a * b)
STRATA_MPI_KERNEL(add_f64, double, a + b)
STRATA_MPI_KERNEL(mul_f64, double, a * b)
#undef STRATA_MPI_KERNEL

// dst = a (op) b for float SUM, MEAN's partial sums and PROD; false for
// what keeps MPI's own rules. `a` may be dst (in place).
bool combine_float(strata_dtype_t dtype, strata_redop_t op, void* dst, const void* a,
                   const void* b, uint64_t n) {
  const bool sum = op == STRATA_SUM || op == STRATA_MEAN;
  if (!sum && op != STRATA_PROD) return false;
  if (a == dst) a = nullptr;
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
    if (kind == Kind::kHalvingDoubling) {
      plan_halving_doubling(plan, steps_);
    } else {
      plan_recursive_doubling(plan, steps_);
    }
  }
}

// Posts the first step and returns without testing it: the answer is
// rarely back yet, and where ranks share a core the test would yield it,
// so the way out of post() and into wait() would run after the switch,
// with the other process's data in the caches. Polling starts in wait().
void ScheduleOperation::start() {
  if (!steps_.empty()) post_step(0);
}

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
// dst = a (op) b. Float SUM and PROD in this file's loops, in place or in
// one pass; the rest by MPI_Reduce_local, which updates its second buffer,
// after copying a to dst when they differ.
void ScheduleOperation::combine(const Step& step) {
  if (!combine_float(desc().dtype, step.op, step.dst, step.a, step.b, step.count)) {
    if (step.dst != step.a) sdk::copy_host(step.dst, step.a, step.count * elem());
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
