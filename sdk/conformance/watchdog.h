// The last line of defence against a hang. Core's deadline ends every call
// that goes on too long — but only while core gets control back. A plugin
// whose post() or test() itself blocks (rule 7) would freeze the suite, so a
// thread watches each call and, past its limit, reports the call and ends
// the process with the summary so far instead of hanging CI forever.
#ifndef STRATA_SDK_CONFORMANCE_WATCHDOG_H_
#define STRATA_SDK_CONFORMANCE_WATCHDOG_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace strata::conformance {

class Watchdog {
 public:
  // `on_fire(what)` runs on the watchdog's thread and must not return
  // (it prints, then ends the process).
  explicit Watchdog(std::function<void(const std::string&)> on_fire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(std::string what, std::chrono::nanoseconds limit);
  void disarm();

 private:
  void loop();

  std::function<void(const std::string&)> on_fire_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool stop_ = false;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;  // last: started once everything above exists
};

// RAII arm/disarm around one call.
class WatchdogScope {
 public:
  WatchdogScope(Watchdog& dog, std::string what, std::chrono::nanoseconds limit) : dog_(dog) {
    dog_.arm(std::move(what), limit);
  }
  ~WatchdogScope() { dog_.disarm(); }
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;

 private:
  Watchdog& dog_;
};

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_WATCHDOG_H_
