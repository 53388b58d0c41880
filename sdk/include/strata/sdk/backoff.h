// Polling with back-off: spin briefly (a collective often finishes within
// microseconds), then yield, then sleep with growing intervals so a long wait
// does not steal a core from the threads doing the work.
#ifndef STRATA_SDK_BACKOFF_H_
#define STRATA_SDK_BACKOFF_H_

#include <chrono>
#include <thread>

namespace strata::sdk {

class Backoff {
 public:
  void pause() {
    using namespace std::chrono;
    ++rounds_;
    if (rounds_ < kSpinRounds) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      return;
    }
    if (rounds_ < kSpinRounds + kYieldRounds) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(sleep_);
    sleep_ = std::min(sleep_ * 2, microseconds(kMaxSleepMicros));
  }
  void reset() {
    rounds_ = 0;
    sleep_ = std::chrono::microseconds(kFirstSleepMicros);
  }

 private:
  static constexpr int kSpinRounds = 2000;
  static constexpr int kYieldRounds = 200;
  static constexpr int kFirstSleepMicros = 20;
  static constexpr int kMaxSleepMicros = 1000;
  int rounds_ = 0;
  std::chrono::microseconds sleep_{kFirstSleepMicros};
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_BACKOFF_H_
