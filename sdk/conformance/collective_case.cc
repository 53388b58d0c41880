#include "sdk/conformance/collective_case.h"

#include <vector>

#include "sdk/conformance/call_check.h"
#include "sdk/conformance/harness.h"
#include "sdk/conformance/values.h"

namespace strata::conformance {
namespace {

// How long a failed call's leftover device work gets to finish before the
// devices count as stuck.
constexpr std::chrono::seconds kDrainGrace{5};

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

StatusOr<std::unique_ptr<Suite>> Suite::create(std::shared_ptr<Runtime> runtime,
                                               SuiteOptions options, Watchdog& watchdog,
                                               std::unique_ptr<ProcessWorld> world) {
  const DeviceTypeEntry* type = runtime->registry().find_device_type(options.device_type);
  if (type == nullptr) {
    std::string known;
    for (const auto* t : runtime->registry().device_types()) known += " " + t->name;
    return NotFoundError("no device type '" + options.device_type +
                         "' is registered; known:" + known);
  }
  const strata_device_type_t table = type->table;
  std::unique_ptr<Suite> suite(new Suite(std::move(runtime), std::move(options), watchdog));
  suite->pool_ = std::make_unique<DevicePool>(table);
  suite->world_ = std::move(world);
  return suite;
}

// The shared team uses pooled buffers until the last test: it goes first.
Suite::~Suite() { world_.reset(); }

StatusOr<std::unique_ptr<Harness>> Suite::make_harness(int world_size) {
  if (world_ == nullptr) {
    return make_local_harness(runtime_, options_.device_type, world_size, options_.timeout,
                              *pool_);
  }
  STRATA_ASSIGN_OR_RETURN(std::shared_ptr<CollectiveOps> ops, world_->team(options_.device_type));
  return make_shared_team_harness(std::move(ops), options_.timeout, *pool_);
}

CallOutcome Suite::agree(const CallOutcome& mine) {
  if (world_ == nullptr) return mine;
  // A peer may spend a whole call's deadline, plus its upload and download,
  // before it reports; the watchdog ends it later than that.
  return world_->agree(mine, 3 * options_.timeout + std::chrono::seconds(10));
}

void Suite::note_broken_team() {
  if (world_ != nullptr) world_->discard_team();
}

std::string Suite::blocked(const std::string& algorithm) const {
  std::lock_guard lock(mu_);
  if (world_ != nullptr && !world_->lost().empty()) return world_->lost();
  if (!stuck_.empty()) return stuck_;
  if (auto it = timed_out_.find(algorithm); it != timed_out_.end()) {
    return "not run: an earlier call of " + algorithm + " (" + it->second +
           ") timed out; its remaining cases are skipped so that the suite finishes "
           "instead of waiting out the deadline again";
  }
  return "";
}

void Suite::note_timeout(const std::string& algorithm, const std::string& test) {
  std::lock_guard lock(mu_);
  timed_out_.try_emplace(algorithm, test);
}

void Suite::note_stuck_devices(const std::string& algorithm) {
  std::lock_guard lock(mu_);
  if (stuck_.empty()) {
    stuck_ = "not run: the " + options_.device_type + " devices still had work queued " +
             std::to_string(kDrainGrace.count()) + "s after a failed call of " + algorithm +
             " (violates rule 7: abort must stop the call); later results would be meaningless";
  }
}

std::string rule_for(const Status& status) {
  const std::string& m = status.message();
  if (contains(m, "threw an exception")) {
    return "violates rule 2 (no exception may leave a plugin function)";
  }
  if (contains(m, "unknown status") || contains(m, "IN_PROGRESS where only") ||
      contains(m, "IN_PROGRESS without an operation")) {
    return "violates rule 4 (return only documented statuses)";
  }
  if (status.code() == Code::kTimedOut) {
    return "violates rule 7 (the call hung, or blocked, past its deadline)";
  }
  return "violates rule 10 (an accepted call must succeed; decline what you cannot serve, "
         "rule 6)";
}

std::string decline_reason(const Status& status) {
  const std::string& m = status.message();
  const auto at = m.rfind("declined: ");
  return at == std::string::npos ? m : m.substr(at + 10);
}

std::string CollectiveCase::call_label(int call, int root) const {
  std::string text = "call " + std::to_string(call + 1) + " of " +
                     std::to_string(suite_.options().iterations);
  if (is_rooted(spec_.op)) text += " (root " + std::to_string(root) + ")";
  return text;
}

std::string CollectiveCase::call_failure(const std::string& where, const Status& status) const {
  return where + " returned " + code_name(status.code()) + ": " + rule_for(status) + "\n  " +
         status.to_string();
}

CallOutcome CollectiveCase::evaluate(const std::string& where, const CallResult& result,
                                     Harness& harness, const CallCheck& check,
                                     const std::vector<ReplicaImage>& images) const {
  using Kind = CallOutcome::Kind;
  if (!result.called) {
    return {Kind::kSetupFailed,
            where + ": the suite could not prepare the buffers: " + result.setup.to_string()};
  }
  if (result.call.code() == Code::kNotSupported) {
    return {Kind::kDeclined, decline_reason(result.call)};
  }
  if (!result.call.ok()) {
    CallOutcome o{Kind::kCallFailed, call_failure(where, result.call)};
    o.timed_out = result.call.code() == Code::kTimedOut;
    o.stuck_devices = !harness.drain(kDrainGrace);
    return o;
  }
  if (!result.setup.ok()) {
    // The call said it was done, so the devices should drain at once.
    CallOutcome o{Kind::kReadbackFailed,
                  where + ": the suite could not read the results back: " +
                      result.setup.to_string() +
                      "\n  if the call left device work queued after reporting completion, "
                      "that breaks strata/abi/algorithm.h (rule 8)"};
    o.stuck_devices = !harness.drain(kDrainGrace);
    return o;
  }
  if (spec_.op == CollectiveKind::kBarrier) return {};
  const CheckReport report = check.check(harness.replicas(), images);
  if (!report.ok()) {
    return {Kind::kMismatch, where + ": " + std::to_string(report.mismatches) +
                                 " mismatch(es) against the host reference\n" +
                                 report.to_string()};
  }
  return {};
}

void CollectiveCase::TestBody() {
  // Counted as "not run", apart from failures (report.h).
  if (const std::string why = suite_.blocked(spec_.algorithm); !why.empty()) GTEST_SKIP() << why;
  const SuiteOptions& options = suite_.options();
  auto made = suite_.make_harness(spec_.world);
  // Under --processes every rank must take the same path from here on.
  CallOutcome built;
  if (!made.ok()) {
    built = {CallOutcome::Kind::kSetupFailed, "the suite could not build a team for " +
                                                  spec_.describe() + ": " +
                                                  made.status().to_string()};
  }
  built = suite_.agree(built);
  if (built.failed()) {
    suite_.note_broken_team();
    FAIL() << built.message;
  }
  Harness& harness = **made;
  // A call may take its deadline for the upload, the call and the download;
  // the watchdog only steps in once core's deadline clearly failed to.
  const auto watchdog_limit = 3 * options.timeout + std::chrono::seconds(5);

  std::vector<std::string> declines;
  for (int call = 0; call < options.iterations; ++call) {
    const int root = is_rooted(spec_.op) ? call % spec_.world : 0;
    const std::string where =
        spec_.algorithm + " " + spec_.describe() + ", " + call_label(call, root);
    CallCheck check(spec_, root, mix_seed(hash_name(spec_.full_name()), call),
                    suite_.workspace());
    std::vector<ReplicaImage>& images = check.images(harness.replicas());
    CallResult result;
    {
      WatchdogScope guard(suite_.watchdog(), where, watchdog_limit);
      result = harness.run(spec_, root, images);
    }
    const CallOutcome outcome =
        suite_.agree(evaluate(where, result, harness, check, images));
    if (outcome.stuck_devices) suite_.note_stuck_devices(spec_.algorithm);
    if (outcome.breaks_team()) suite_.note_broken_team();
    switch (outcome.kind) {
      case CallOutcome::Kind::kPassed: continue;
      case CallOutcome::Kind::kDeclined:
        declines.push_back(outcome.message + " [" + call_label(call, root) + "]");
        continue;
      case CallOutcome::Kind::kCallFailed:
        if (outcome.timed_out) suite_.note_timeout(spec_.algorithm, spec_.test_name());
        ADD_FAILURE() << outcome.message;
        return;
      default: FAIL() << outcome.message;
    }
  }
  if (declines.empty()) return;
  // Not a pass: some calls never ran. Say whether the others passed.
  const auto ran = static_cast<size_t>(options.iterations) - declines.size();
  GTEST_SKIP() << "declined: " << declines.front()
               << (ran == 0 ? std::string()
                            : "; " + std::to_string(ran) + " other call(s) passed");
}

}  // namespace strata::conformance
