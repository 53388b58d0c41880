// Notices a plugin call that does not return. Core's deadline ends a
// collective only while core has control; a plugin blocked inside post(),
// test(), wait(), run() or abort() (sdk/README.md rule 7) keeps it, and C
// offers no way to take it back: a thread cannot be interrupted safely, and
// killing it would leave the plugin's locks held. So core does what it can:
// a thread watches every call in flight and, once one is past its deadline,
// logs a warning naming the plugin, the algorithm and the function, again
// at a falling rate (1 s, 2 s, 4 s, ... at most once a minute) while the
// call stays blocked, and once more when it finally returns.
//
// The caller's side is a Slot per CollectiveOps (calls on one are
// serialised): a handful of plain atomic stores per call and no clock read,
// since the calls of a small collective cost tens of nanoseconds in all.
#ifndef STRATA_CORE_PLUGIN_CALL_WATCHDOG_H_
#define STRATA_CORE_PLUGIN_CALL_WATCHDOG_H_

#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/plugin/registry.h"

namespace strata {

class CallWatchdog {
 public:
  // One thread of control's plugin call in flight, if any. Registered with
  // the watchdog for its whole life; not copyable or movable.
  class Slot {
   public:
    Slot();
    ~Slot();
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

    // Marks the start and the end of one call of `algo`'s `fn` ("post"),
    // which should have returned by `deadline_ns` (the clock of now_ns()).
    void enter(const AlgorithmEntry& algo, const char* fn, int64_t deadline_ns,
               uint64_t sequence) noexcept {
      // A seqlock's writer side: release stores keep the previous leave()
      // ordered before each of them, so a scan that reads one of them also
      // sees the generation move. Release stores rather than a fence because
      // ThreadSanitizer does not model fences (GCC refuses them under
      // -fsanitize=thread); on x86 either one only restrains the compiler.
      algo_.store(&algo, std::memory_order_release);
      fn_.store(fn, std::memory_order_release);
      deadline_ns_.store(deadline_ns, std::memory_order_release);
      sequence_.store(sequence, std::memory_order_release);
      const uint64_t g = generation_.load(std::memory_order_relaxed);
      generation_.store(g + 1, std::memory_order_release);  // odd: inside
    }
    void leave() noexcept {
      const uint64_t g = generation_.load(std::memory_order_relaxed);
      generation_.store(g + 1, std::memory_order_release);  // even: outside
      if (warned_generation_.load(std::memory_order_relaxed) == g) report_return();
    }

   private:
    friend class CallWatchdog;
    void report_return() noexcept;  // the call the watchdog warned about returned

    std::atomic<uint64_t> generation_{0};
    std::atomic<const AlgorithmEntry*> algo_{nullptr};
    std::atomic<const char*> fn_{nullptr};
    std::atomic<int64_t> deadline_ns_{0};
    std::atomic<uint64_t> sequence_{0};
    // The generation of the call the watchdog last warned about. Stale
    // values are harmless: generations only grow. A warning that races with
    // the return may miss its "returned" line; the hot path stays free of
    // a full fence.
    std::atomic<uint64_t> warned_generation_{0};
    // The watchdog thread's own bookkeeping, under its mutex.
    uint64_t watched_generation_ = 0;
    int64_t next_warning_ns_ = 0;
    std::chrono::nanoseconds interval_{};
  };

  // Waits until no scan is formatting a warning: call before an algorithm
  // entry a Slot may point at is freed (PluginLoader, before remove_plugin).
  static void quiesce();

  // How far past its deadline a call must be before the first warning, and
  // how often the thread looks.
  static constexpr std::chrono::milliseconds kGrace{250};
  static constexpr std::chrono::milliseconds kScanPeriod{100};
  static constexpr std::chrono::seconds kFirstRepeat{1};
  static constexpr std::chrono::seconds kMaxRepeat{60};

 private:
  static void add(Slot* slot);
  static void remove(Slot* slot);
  static void loop();
  // Warns about every slot past its deadline; with the watchdog's mutex held.
  static void scan(int64_t now_ns);
  static void warn(Slot& slot, const AlgorithmEntry& algo, const char* fn, uint64_t sequence,
                   int64_t late_ns);
};

// RAII around one call: enter() now, leave() at the end of the scope. A null
// slot watches nothing.
class WatchedCall {
 public:
  WatchedCall(CallWatchdog::Slot* slot, const AlgorithmEntry& algo, const char* fn,
              int64_t deadline_ns, uint64_t sequence) noexcept
      : slot_(slot) {
    if (slot_ != nullptr) slot_->enter(algo, fn, deadline_ns, sequence);
  }
  ~WatchedCall() {
    if (slot_ != nullptr) slot_->leave();
  }
  WatchedCall(const WatchedCall&) = delete;
  WatchedCall& operator=(const WatchedCall&) = delete;

 private:
  CallWatchdog::Slot* slot_;
};

}  // namespace strata

#endif  // STRATA_CORE_PLUGIN_CALL_WATCHDOG_H_
