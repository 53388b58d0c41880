#include "mpi_operation.h"

#include <string>
#include <thread>

#include "mpi_runtime.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::mpi {

MpiOperation::MpiOperation(Comm& comm, const strata_call_t& call)
    : comm_(comm), call_(call), elem_(sdk::dtype_size(call.desc->dtype)) {}

void MpiOperation::post() {
  if (comm_.abandoned()) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     "this team's MPI communicator was given up after an earlier call (" +
                         comm_.abandoned_why() + "); build a new team");
  }
  posted_ = true;
  if (count() == 0 && desc().op != STRATA_BARRIER) {
    done_ = true;
    return;
  }
  try {
    auto lock = MpiRuntime::instance().serialize();
    start();
  } catch (...) {
    // Part of the work may be posted already: nothing on this communicator
    // can be trusted any more.
    comm_.abandon("post failed");
    throw;
  }
}

bool MpiOperation::test() {
  if (done_) return true;
  if (!posted_) throw sdk::Error(STRATA_FAILED_PRECONDITION, "test() before post()");
  try {
    bool complete;
    {
      auto lock = MpiRuntime::instance().serialize();
      complete = progress();
    }
    if (!complete) return false;
    finish();
  } catch (...) {
    comm_.abandon("a call failed");
    throw;
  }
  done_ = true;
  return true;
}

// MPI progresses only inside MPI calls (Open MPI has no progress thread by
// default): a rank that sleeps stalls its peers, whose large messages it
// must pull (vader's single-copy) and whose next round needs its answer.
// The SDK's generic back-off sleeps up to 1 ms between polls, which made a
// 16 MiB ring take 50 ms instead of 4. So: spin while the call advances,
// yield once it has stalled for a while, until 10 ms, and nap briefly only
// after that — a slow peer, not a slow wire.
//
// How long "a while" is depends on whether the team's ranks share cores.
// If they do, a spinning rank holds the core its peer needs: yield after
// 50 µs (Open MPI yields inside idle MPI_Tests only when mpirun knows the
// node is oversubscribed, never for singletons such as `strata launch`
// starts). If every rank has a core, a yield only costs time, since a step
// of a 1 MiB ring waits 50 µs or more for the peer's single-copy read:
// spin for 2 ms (2 ranks, 1-16 MiB in place: medians 1.016-1.018 of
// MPI_Allreduce with 50 µs, 0.998-1.014 with 2 ms; docs/performance/mpi_tuning.md).
//
// The slice is counted from the 32nd poll, the first clock read: a small
// call ends before it, and a clock read costs a tenth of the framework's
// whole overhead on a small call (kvm-clock: ~27 ns).
bool MpiOperation::wait(std::chrono::nanoseconds timeout) {
  using Clock = std::chrono::steady_clock;
  using namespace std::chrono_literals;
  Clock::time_point deadline;
  Clock::time_point moved;
  uint64_t mark = progress_mark();
  for (uint32_t round = 1;; ++round) {
    if (test()) return true;
    if (round % 32 != 0) continue;  // the clock costs more than an MPI_Test
    const auto now = Clock::now();
    if (round == 32) {
      deadline = now + timeout;
      moved = now;
    }
    if (const uint64_t m = progress_mark(); m != mark) {
      mark = m;
      moved = now;
    }
    if (now >= deadline) return false;
    const auto idle = now - moved;
    if (idle < (comm_.shares_cores() ? 50us : 2ms)) continue;
    if (idle < 10ms) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(50us);
    }
  }
}

void MpiOperation::abort() {
  if (posted_ && !done_) comm_.abandon("a call was aborted before it completed");
}

bool MpiOperation::progress() {
  int flag = 0;
  check_mpi(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
  return flag != 0;
}

namespace {

template <class T>
void divide(void* data, uint64_t count, uint32_t divisor) {
  T* x = static_cast<T*>(data);
  const T d = static_cast<T>(divisor);
  for (uint64_t i = 0; i < count; ++i) x[i] = static_cast<T>(x[i] / d);  // ints truncate
}

}  // namespace

void divide_in_place(strata_dtype_t dtype, void* data, uint64_t count, uint32_t divisor) {
  // Plain loops where C++ division is the ABI's MEAN (they vectorise); the
  // SDK's kernel for the half types, which round through float.
  switch (dtype) {
    case STRATA_F32: return divide<float>(data, count, divisor);
    case STRATA_F64: return divide<double>(data, count, divisor);
    case STRATA_I32: return divide<int32_t>(data, count, divisor);
    case STRATA_I64: return divide<int64_t>(data, count, divisor);
    case STRATA_U8: return divide<uint8_t>(data, count, divisor);
    default: break;
  }
  const void* const srcs[1] = {data};
  if (!sdk::reduce_host(dtype, STRATA_MEAN, data, srcs, 1, count, divisor)) {
    throw sdk::Error(STRATA_INTERNAL, std::string("cannot divide dtype ") +
                                          sdk::dtype_name(dtype) + " for MEAN");
  }
}

}  // namespace strata::mpi
