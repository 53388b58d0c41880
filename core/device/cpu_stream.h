// The in-order work queue of one virtual CPU device, drained by that
// device's own thread. Copies and reductions run there; events order work
// between streams exactly as CUDA events do between CUDA streams.
#ifndef STRATA_CORE_DEVICE_CPU_STREAM_H_
#define STRATA_CORE_DEVICE_CPU_STREAM_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "strata/abi/types.h"

namespace strata {

// Reached once the stream that recorded it passes the record.
struct CpuEvent {
  explicit CpuEvent(int dev) : device(dev) {}
  const int device;
  std::atomic<uint64_t> recorded{0};  // generation of the latest record
  std::atomic<uint64_t> reached{0};   // generation the stream has passed
  std::mutex mu;                      // guards the notification, see cpu_stream.cc
  std::condition_variable cv;

  bool is_reached(uint64_t generation) const {
    return reached.load(std::memory_order_acquire) >= generation;
  }
  // Blocks until `generation` is reached or the timeout passes.
  bool wait_for(uint64_t generation, std::chrono::nanoseconds timeout);
  void mark(uint64_t generation);
};

struct CpuTask {
  enum class Kind { kCopy, kReduce, kRecord, kWait };
  explicit CpuTask(Kind k) : kind(k) {}
  Kind kind;
  void* dst = nullptr;
  const void* src = nullptr;
  uint64_t bytes = 0;  // copy
  strata_dtype_t dtype = 0;
  strata_redop_t op = 0;
  uint32_t divisor = 1;
  uint64_t count = 0;
  std::vector<void*> dsts;        // reduce
  std::vector<const void*> srcs;  // reduce
  CpuEvent* event = nullptr;      // record, wait
  uint64_t generation = 0;
};

class CpuStream {
 public:
  CpuStream() = default;
  ~CpuStream();  // finishes queued work, then joins the thread
  CpuStream(const CpuStream&) = delete;
  CpuStream& operator=(const CpuStream&) = delete;

  void enqueue(CpuTask task);

 private:
  void run();
  void execute(CpuTask& task);

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<CpuTask> queue_;
  bool stop_ = false;
  bool sleeping_ = false;
  std::thread thread_;  // started by the first enqueue
};

}  // namespace strata

#endif  // STRATA_CORE_DEVICE_CPU_STREAM_H_
