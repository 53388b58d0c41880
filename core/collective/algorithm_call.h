// Core's side of every call into an algorithm table: message buffers, status
// translation, and a catch for plugins that let an exception cross the C
// boundary (rule 2) — a misbehaving plugin gets an error, not a crash.
#ifndef STRATA_CORE_COLLECTIVE_ALGORITHM_CALL_H_
#define STRATA_CORE_COLLECTIVE_ALGORITHM_CALL_H_

#include <chrono>
#include <optional>
#include <string>

#include "core/common/status.h"
#include "core/plugin/call_watchdog.h"
#include "core/plugin/registry.h"

namespace strata {

// Result of supports(): accepted, or declined with the plugin's reason.
struct Support {
  bool accepted = false;
  std::string reason;  // why declined (or the error, for a broken plugin)
};

Support call_supports(const AlgorithmEntry& algo, const strata_call_desc_t& call);
// nullopt when the algorithm gives no estimate, or one that is not a time:
// NaN, an infinity or negative, which is logged (once per algorithm) as a
// warning naming the plugin instead of silently ranking it last.
std::optional<double> call_estimate(const AlgorithmEntry& algo,
                                    const strata_call_desc_t& call);

// estimate() exactly as the plugin answered it, for the conformance suite:
// `offered` is false when the table has no estimate or it answered
// NOT_SUPPORTED; `status` is an error for any other status or an exception.
struct EstimateAnswer {
  bool offered = false;
  double seconds = 0;
  Status status;
};
EstimateAnswer probe_estimate(const AlgorithmEntry& algo, const strata_call_desc_t& call);

// NOT_SUPPORTED (a decline) carries the plugin's reason alone as message.
StatusOr<void*> call_team_create(const AlgorithmEntry& algo,
                                 const strata_team_desc_t& team);
void call_team_destroy(const AlgorithmEntry& algo, void* team_state);

struct StartedCall;

// One operation in flight; destroy() runs in the destructor.
class Operation {
 public:
  // create(), post() and a first wait() of up to `first_slice`: one call of
  // the table's run() where it has one (ABI 1.1), else the three. Every
  // call into the plugin is watched through `watch` (may be null): one
  // still inside past call.deadline_ns is reported by the CallWatchdog.
  static StartedCall start(const AlgorithmEntry& algo, void* team_state,
                           const strata_call_t& call, std::chrono::nanoseconds first_slice,
                           CallWatchdog::Slot* watch = nullptr);
  Operation(Operation&& other) noexcept;
  Operation& operator=(Operation&&) = delete;
  ~Operation();

  Status post();
  // OK when done; IN_PROGRESS is reported as `done = false`.
  StatusOr<bool> test();
  // Blocks up to `slice` when the algorithm offers wait(); else one test().
  StatusOr<bool> wait(std::chrono::nanoseconds slice);
  bool can_wait() const { return algo_->table.wait != nullptr; }
  void abort();

 private:
  // Only through start(), which decides between run() and the three calls.
  static StatusOr<Operation> create(const AlgorithmEntry& algo, void* team_state,
                                    const strata_call_t& call, CallWatchdog::Slot* watch);
  Operation(const AlgorithmEntry& algo, void* op, const strata_call_t& call,
            CallWatchdog::Slot* watch)
      : algo_(&algo),
        op_(op),
        watch_(watch),
        deadline_ns_(call.deadline_ns),
        sequence_(call.sequence) {}
  const AlgorithmEntry* algo_;
  void* op_;
  CallWatchdog::Slot* watch_;
  int64_t deadline_ns_;
  uint64_t sequence_;
};

// What Operation::start left behind.
struct StartedCall {
  Status status;  // the first failure
  // Work reached the backend: after a failure, peers may be mid-call.
  bool posted = false;
  // Posted and not finished yet (only when `status` is OK).
  std::optional<Operation> running;
};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_ALGORITHM_CALL_H_
