// The in-order work queue of one simulated TPU core, drained by that core's
// own thread: what a TPU's DMA engines and vector units are to its host.
// Events order work between cores as CUDA events order streams. Unlike a
// host thread a core can fail asynchronously (a wait on another core that
// never arrives): it then skips its later work, and every event it passes
// afterwards carries the error, so event_query and synchronize report it
// instead of anything hanging.
#ifndef STRATA_PLUGINS_TPU_SIM_CORE_STREAM_H_
#define STRATA_PLUGINS_TPU_SIM_CORE_STREAM_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "strata/abi/types.h"

namespace strata::tpu_sim {

// Reached once the core that recorded it passes the record.
struct CoreEvent {
  explicit CoreEvent(int core_index) : core(core_index) {}
  const int core;
  std::atomic<uint64_t> recorded{0};  // generation of the latest record
  std::atomic<uint64_t> reached{0};   // generation the core has passed
  std::mutex mu;                      // guards error and the notification
  std::condition_variable cv;
  std::string error;                  // set when work before a record failed

  bool is_reached(uint64_t generation) const {
    return reached.load(std::memory_order_acquire) >= generation;
  }
  bool wait_for(uint64_t generation, std::chrono::nanoseconds timeout);
  void mark(uint64_t generation, const std::string& failure);
  std::string failure();
};

struct CoreTask {
  enum class Kind { kCopy, kReduce, kRecord, kWait };
  explicit CoreTask(Kind k) : kind(k) {}
  Kind kind;
  void* dst = nullptr;
  const void* src = nullptr;
  uint64_t bytes = 0;                // copy
  std::chrono::nanoseconds hold{0};  // copy: modelled link time to pace to
  strata_dtype_t dtype = 0;
  strata_redop_t op = 0;
  uint32_t divisor = 1;
  uint64_t count = 0;
  std::vector<void*> dsts;        // reduce
  std::vector<const void*> srcs;  // reduce
  CoreEvent* event = nullptr;     // record, wait
  uint64_t generation = 0;
};

class CoreStream {
 public:
  // `core` names the core in errors; waits on other cores give up after
  // `wait_timeout`.
  CoreStream(int core, std::chrono::nanoseconds wait_timeout);
  ~CoreStream();  // finishes queued work, then joins the thread
  CoreStream(const CoreStream&) = delete;
  CoreStream& operator=(const CoreStream&) = delete;

  void enqueue(CoreTask task);
  // The first asynchronous failure of this core, empty while healthy.
  std::string failure();

 private:
  void run();
  void execute(CoreTask& task);
  void fail(std::string why);

  const int core_;
  const std::chrono::nanoseconds wait_timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<CoreTask> queue_;
  bool stop_ = false;
  bool sleeping_ = false;
  std::string failure_;  // guarded by mu_
  std::atomic<bool> failed_{false};
  std::thread thread_;  // started by the first enqueue
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_CORE_STREAM_H_
