#include "nccl_operation.h"

#include <chrono>
#include <string>

#include "cuda_error.h"
#include "nccl_types.h"
#include "reduce_kernel.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/types.h"

namespace strata::nccl {
namespace {

// After an abort NCCL's kernels see the abort flag and exit within
// milliseconds; this bound only keeps a wedged GPU from hanging destroy().
constexpr std::chrono::seconds kDrainTimeout{10};

bool is_reducing(strata_op_t op) {
  return op == STRATA_ALL_REDUCE || op == STRATA_REDUCE_SCATTER || op == STRATA_REDUCE;
}

}  // namespace

NcclOperation::NcclOperation(NcclComms& comms, const strata_call_t& call)
    : comms_(comms), call_(call), elem_(sdk::dtype_size(call.desc->dtype)) {}

NcclOperation::~NcclOperation() {
  drain();
  for (cudaEvent_t e : events_) (void)cudaEventDestroy(e);
  (void)cudaGetLastError();
}

void NcclOperation::post() {
  if (stage_ != Stage::kCreated) throw sdk::Error(STRATA_FAILED_PRECONDITION, "post() called twice");
  if (comms_.broken()) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     "this team's NCCL communicators were aborted after an earlier call (" +
                         comms_.broken_why() + "); build a new team");
  }
  if (count() == 0) {  // every rank sees the same count, so all skip alike
    stage_ = Stage::kDone;
    return;
  }
  // Everything that can fail without a trace goes before the group opens,
  // so an exception never leaves this thread inside ncclGroupStart.
  if (is_reducing(desc().op)) {
    (void)nccl_dtype(desc().dtype);  // throw NotSupported for values NCCL lacks
    (void)nccl_op(desc().redop);
  }
  std::vector<cudaStream_t> streams;
  for (size_t i = 0; i < comms_.size(); ++i) {
    const int d = comms_.device(i);
    streams.push_back(comms_.cuda().stream(d));
    DeviceGuard guard(d);
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags", d);
    events_.push_back(e);
  }
  check_nccl(ncclGroupStart(), "ncclGroupStart", nullptr);
  std::string failure;
  ncclResult_t failed = ncclSuccess;
  for (size_t i = 0; i < comms_.size() && failure.empty(); ++i) {
    const ncclResult_t r = issue(i, comms_.comm(i), streams[i]);
    if (r != ncclSuccess && r != ncclInProgress) {
      failed = r;
      failure = std::string("NCCL ") + sdk::op_name(desc().op) + " on rank " +
                std::to_string(rank(i)) + ": " + nccl_error_text(r, comms_.comm(i));
    }
  }
  const ncclResult_t end = ncclGroupEnd();
  if (failure.empty() && end != ncclSuccess && end != ncclInProgress) {
    failed = end;
    failure = "ncclGroupEnd: " + nccl_error_text(end, nullptr);
  }
  if (!failure.empty()) {
    // Some ranks' work may be queued already: nothing on these
    // communicators can be trusted any more.
    comms_.abort("a call failed to start");
    throw sdk::Error(nccl_status(failed), "nccl: " + failure);
  }
  stage_ = Stage::kSettingUp;
}

void NcclOperation::enqueue_tail() {
  const bool mean = is_reducing(desc().op) && desc().redop == STRATA_MEAN;
  for (size_t i = 0; i < comms_.size(); ++i) {
    const int d = comms_.device(i);
    cudaStream_t s = comms_.cuda().stream(d);
    DeviceGuard guard(d);
    if (mean && divides(i)) {
      void* const dst[1] = {out(i)};
      const void* const src[1] = {out(i)};
      check_cuda(launch_reduce(desc().dtype, STRATA_MEAN, dst, 1, src, 1, output_count(),
                               static_cast<uint32_t>(desc().team->replica_count), s),
                 "MEAN's divide kernel", d);
    }
    check_cuda(cudaEventRecord(events_[i], s), "cudaEventRecord", d);
  }
}

bool NcclOperation::test() {
  switch (stage_) {
    case Stage::kDone: return true;
    case Stage::kCreated: throw sdk::Error(STRATA_FAILED_PRECONDITION, "test() before post()");
    case Stage::kSettingUp:
      if (!comms_.ready()) return false;
      try {
        enqueue_tail();
      } catch (...) {
        comms_.abort("enqueueing after a collective failed");
        throw;
      }
      stage_ = Stage::kRunning;
      [[fallthrough]];
    case Stage::kRunning:
      for (size_t i = 0; i < events_.size(); ++i) {
        const cudaError_t e = cudaEventQuery(events_[i]);
        if (e == cudaErrorNotReady) {
          (void)comms_.ready();  // throws on an asynchronous NCCL error
          return false;
        }
        if (e != cudaSuccess) {
          comms_.abort("a CUDA error during a collective");
          check_cuda(e, std::string("NCCL ") + sdk::op_name(desc().op) + " on rank " +
                            std::to_string(rank(i)),
                     comms_.device(i));
        }
      }
      stage_ = Stage::kDone;
      return true;
  }
  return false;
}

void NcclOperation::abort() {
  if (stage_ == Stage::kSettingUp || stage_ == Stage::kRunning) {
    comms_.abort("a call was aborted before it completed (deadline, or another rank failed)");
  }
}

void NcclOperation::drain() noexcept {
  if (stage_ == Stage::kSettingUp) {
    // NCCL may have queued kernels (aborted ones exit early) before we got
    // to record the events: mark the streams' ends now and wait for those.
    for (size_t i = 0; i < events_.size(); ++i) {
      try {
        DeviceGuard guard(comms_.device(i));
        (void)cudaEventRecord(events_[i], comms_.cuda().stream(comms_.device(i)));
        (void)cudaGetLastError();
      } catch (const std::exception&) {
      }
    }
    stage_ = Stage::kRunning;
  }
  if (stage_ != Stage::kRunning) return;
  const auto deadline = std::chrono::steady_clock::now() + kDrainTimeout;
  for (size_t i = 0; i < events_.size(); ++i) {
    try {
      const auto left = deadline - std::chrono::steady_clock::now();
      if (!CudaDevices::wait_event(events_[i], comms_.device(i),
                                   std::max<std::chrono::nanoseconds>(left, {}))) {
        sdk::Host::log(STRATA_LOG_ERROR,
                       "an abandoned NCCL call on cuda:" + std::to_string(comms_.device(i)) +
                           " did not drain within 10 s; its buffers may still be written");
        return;
      }
    } catch (const std::exception&) {
      // The stream failed: nothing more will run on it.
    }
  }
}

}  // namespace strata::nccl
