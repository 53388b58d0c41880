// The test every cell of the matrix runs: several calls on one team with
// fresh data each time (roots rotate for broadcast and reduce), every
// element of every buffer checked against the host reference. A decline is
// a GTEST_SKIP starting "declined:", which the report counts as declined.
#ifndef STRATA_SDK_CONFORMANCE_COLLECTIVE_CASE_H_
#define STRATA_SDK_CONFORMANCE_COLLECTIVE_CASE_H_

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <map>
#include <string>

#include "core/common/status.h"
#include "core/runtime/runtime.h"
#include "sdk/conformance/call_check.h"
#include "sdk/conformance/call_outcome.h"
#include "sdk/conformance/case_spec.h"
#include "sdk/conformance/harness.h"
#include "sdk/conformance/options.h"
#include "sdk/conformance/process_world.h"
#include "sdk/conformance/watchdog.h"

namespace strata::conformance {

// What every test of one run shares, including what earlier tests learnt:
// after a call timed out, further cases of that algorithm would only wait
// out the deadline again, and devices that never drained poison every case.
class Suite {
 public:
  // Fails when the options name a device type nobody registered. `world`
  // is set in --processes mode: tests then run on its shared team.
  static StatusOr<std::unique_ptr<Suite>> create(std::shared_ptr<Runtime> runtime,
                                                 SuiteOptions options, Watchdog& watchdog,
                                                 std::unique_ptr<ProcessWorld> world = nullptr);
  ~Suite();

  const std::shared_ptr<Runtime>& runtime() const { return runtime_; }
  const SuiteOptions& options() const { return options_; }
  Watchdog& watchdog() { return watchdog_; }
  // Tests run one at a time on the main thread, so one workspace serves all.
  Workspace& workspace() { return workspace_; }
  DevicePool& pool() { return *pool_; }
  ProcessWorld* world() { return world_.get(); }

  // The harness of one test: a fresh local team of `world_size` devices, or
  // this process's share of the shared multi-process team.
  StatusOr<std::unique_ptr<Harness>> make_harness(int world_size);
  // The verdict every process acts on: `mine` alone, or under --processes
  // every rank's outcome combined (ProcessWorld::agree).
  CallOutcome agree(const CallOutcome& mine);
  // A call failed in a way that may leave work pending on some rank: the
  // next test builds a new team (--processes only; local teams are per test).
  void note_broken_team();

  // Why a case of `algorithm` must not run, or "" to run it.
  std::string blocked(const std::string& algorithm) const;
  // A call of `test` of `algorithm` timed out.
  void note_timeout(const std::string& algorithm, const std::string& test);
  void note_stuck_devices(const std::string& algorithm);

 private:
  Suite(std::shared_ptr<Runtime> runtime, SuiteOptions options, Watchdog& watchdog)
      : runtime_(std::move(runtime)), options_(std::move(options)), watchdog_(watchdog) {}

  std::shared_ptr<Runtime> runtime_;  // first: outlives the pool's blocks
  SuiteOptions options_;
  Watchdog& watchdog_;
  std::unique_ptr<DevicePool> pool_;
  std::unique_ptr<ProcessWorld> world_;
  Workspace workspace_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> timed_out_;  // algorithm -> the test that timed out
  std::string stuck_;
};

class CollectiveCase : public testing::Test {
 public:
  CollectiveCase(Suite& suite, CaseSpec spec) : suite_(suite), spec_(std::move(spec)) {}
  void TestBody() override;

 private:
  // "call 2 of 3 (root 1)"
  std::string call_label(int call, int root) const;
  // "<where> returned TIMED_OUT: violates rule 7 ...": a call's error.
  std::string call_failure(const std::string& where, const Status& status) const;
  // What one call came to on this process, before the processes agree.
  CallOutcome evaluate(const std::string& where, const CallResult& result, Harness& harness,
                       const CallCheck& check, const std::vector<ReplicaImage>& images) const;

  Suite& suite_;
  CaseSpec spec_;
};

// The sdk/README.md rule a failed call most plausibly broke, as
// "violates rule N (...)", or "" when nothing fits.
std::string rule_for(const Status& status);
// The plugin's reason from a NOT_SUPPORTED status, without core's framing.
std::string decline_reason(const Status& status);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_COLLECTIVE_CASE_H_
