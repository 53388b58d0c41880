#include "core/plugin/call_watchdog.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/common/clock.h"
#include "core/common/logging.h"
#include "core/common/units.h"

namespace strata {
namespace {

// The watchdog's state. Never destroyed: a thread that outlives main() may
// still own a Slot, and its destructor must find the list intact.
struct State {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<CallWatchdog::Slot*> slots;
  std::thread* thread = nullptr;  // leaked in a forked child, where it does not exist
  pid_t owner = 0;                // the process that started `thread`
  bool stop = false;
};

State& state() {
  static State* const s = [] {
    auto* made = new State();
    // fork() while the watchdog holds its mutex would leave it locked in
    // the child forever; and the child has no watchdog thread.
    ::pthread_atfork([] { state().mu.lock(); }, [] { state().mu.unlock(); },
                     [] {
                       State& st = state();
                       st.thread = nullptr;
                       st.owner = 0;
                       st.mu.unlock();
                     });
    return made;
  }();
  return *s;
}

// Stops the thread at exit, before the logger it writes to is destroyed:
// constructed after the logger (see start_locked), so destroyed before it.
struct Stopper {
  ~Stopper() {
    State& s = state();
    std::thread* thread = nullptr;
    {
      std::lock_guard lock(s.mu);
      if (s.thread == nullptr || s.owner != ::getpid()) return;
      s.stop = true;
      thread = s.thread;
      s.thread = nullptr;
    }
    s.cv.notify_all();
    thread->join();
    delete thread;
  }
};

std::string quoted_fn(const char* fn) { return std::string(fn == nullptr ? "?" : fn) + "()"; }

}  // namespace

CallWatchdog::Slot::Slot() { add(this); }
CallWatchdog::Slot::~Slot() { remove(this); }

void CallWatchdog::Slot::report_return() noexcept {
  const int64_t late = now_ns() - deadline_ns_.load(std::memory_order_relaxed);
  const AlgorithmEntry* algo = algo_.load(std::memory_order_relaxed);
  try {
    STRATA_LOG_WARN("plugin {} algorithm {}: {} returned at last, {} after the call's deadline "
                    "(seq {})",
                    algo->plugin, algo->id, quoted_fn(fn_.load(std::memory_order_relaxed)),
                    format_duration(std::chrono::nanoseconds(std::max<int64_t>(late, 0))),
                    sequence_.load(std::memory_order_relaxed));
  } catch (...) {
    // Logging failed (out of memory): the warning is lost, the call is not.
  }
}

void CallWatchdog::add(Slot* slot) {
  (void)logger();  // before the Stopper below, so that it outlives the thread
  State& s = state();
  std::lock_guard lock(s.mu);
  s.slots.push_back(slot);
  s.cv.notify_all();
  if (s.thread != nullptr || s.stop) return;
  static Stopper stopper;
  s.owner = ::getpid();
  s.thread = new std::thread(&CallWatchdog::loop);
}

void CallWatchdog::remove(Slot* slot) {
  State& s = state();
  std::lock_guard lock(s.mu);
  std::erase(s.slots, slot);
}

void CallWatchdog::quiesce() {
  State& s = state();
  std::lock_guard lock(s.mu);
}

void CallWatchdog::loop() {
  ::pthread_setname_np(::pthread_self(), "strata-watchdog");
  State& s = state();
  std::unique_lock lock(s.mu);
  while (!s.stop) {
    // No team, no call to watch: sleep until a Slot is added.
    if (s.slots.empty()) {
      s.cv.wait(lock);
    } else {
      s.cv.wait_for(lock, kScanPeriod);
    }
    if (s.stop) break;
    // Only while some call is in flight does the clock matter; reading it
    // every period costs nothing next to the wake-up itself.
    scan(now_ns());
  }
}

void CallWatchdog::scan(int64_t now) {
  for (Slot* slot : state().slots) {
    const uint64_t g = slot->generation_.load(std::memory_order_acquire);
    if (g % 2 == 0) continue;  // not inside a call
    // Acquire loads keep the second look at the generation after them (the
    // seqlock's reader side, without a fence: see Slot::enter).
    const AlgorithmEntry* algo = slot->algo_.load(std::memory_order_acquire);
    const char* fn = slot->fn_.load(std::memory_order_acquire);
    const int64_t deadline = slot->deadline_ns_.load(std::memory_order_acquire);
    const uint64_t sequence = slot->sequence_.load(std::memory_order_acquire);
    if (slot->generation_.load(std::memory_order_relaxed) != g) continue;  // it returned
    if (g != slot->watched_generation_) {
      slot->watched_generation_ = g;
      slot->next_warning_ns_ = deadline + std::chrono::nanoseconds(kGrace).count();
      slot->interval_ = kFirstRepeat;
    }
    if (algo == nullptr || now < slot->next_warning_ns_) continue;
    slot->warned_generation_.store(g, std::memory_order_relaxed);
    warn(*slot, *algo, fn, sequence, now - deadline);
    slot->next_warning_ns_ = now + slot->interval_.count();
    slot->interval_ = std::min<std::chrono::nanoseconds>(2 * slot->interval_, kMaxRepeat);
  }
}

void CallWatchdog::warn(Slot& slot, const AlgorithmEntry& algo, const char* fn,
                        uint64_t sequence, int64_t late_ns) {
  try {
    STRATA_LOG_WARN(
        "plugin {} algorithm {}: {} has not returned {} after the call's deadline (seq {}); "
        "core cannot interrupt a call inside a plugin, so this thread stays blocked until it "
        "returns (sdk/README.md rule 7); next warning in {} if it is still blocked",
        algo.plugin, algo.id, quoted_fn(fn),
        format_duration(std::chrono::nanoseconds(std::max<int64_t>(late_ns, 0))), sequence,
        format_duration(slot.interval_));
  } catch (...) {
    // As in report_return: a lost warning must not end the watchdog.
  }
}

}  // namespace strata
