#include "core/collective/algorithm_call.h"

#include <cmath>

#include "core/common/clock.h"
#include "core/common/logging.h"
#include "core/plugin/abi_status.h"

namespace strata {
namespace {

// abort() has no deadline of its own (it runs when the call's has passed);
// rule 7 says it returns promptly, so one second is generous.
constexpr std::chrono::seconds kAbortAllowance{1};

// Runs one table call; a thrown exception becomes INTERNAL.
template <class Fn>
Status guarded(const AlgorithmEntry& algo, const char* fn, Fn&& call,
               bool allow_in_progress = false) {
  AbiMessage m;
  try {
    const strata_status_t status = call(m);
    // Inline, the common answers: a 1.0 table's small collective is three of these.
    if (status == STRATA_OK || (allow_in_progress && status == STRATA_IN_PROGRESS)) {
      return Status::Ok();
    }
    return from_abi(status, m, fn, allow_in_progress);
  } catch (...) {
    return InternalError(algo.id + " " + fn + threw_across_abi());
  }
}

}  // namespace

Support call_supports(const AlgorithmEntry& algo, const strata_call_desc_t& call) {
  if (algo.table.supports == nullptr) return {true, ""};
  AbiMessage m;
  strata_status_t st;
  try {
    st = algo.table.supports(algo.table.user_data, &call, m.view());
  } catch (...) {
    return {false, "supports" + threw_across_abi()};
  }
  if (st == STRATA_OK) return {true, ""};
  if (st == STRATA_NOT_SUPPORTED) {
    const std::string why = m.str();
    return {false, why.empty() ? "declined without a reason" : why};
  }
  const Status s = from_abi(st, m, "supports");
  STRATA_LOG_WARN("{}: {}", algo.id, s.message());
  return {false, s.message()};
}

EstimateAnswer probe_estimate(const AlgorithmEntry& algo, const strata_call_desc_t& call) {
  EstimateAnswer answer;
  if (algo.table.estimate == nullptr) return answer;
  strata_status_t st;
  try {
    st = algo.table.estimate(algo.table.user_data, &call, &answer.seconds);
  } catch (...) {
    answer.status = InternalError(algo.id + " estimate" + threw_across_abi());
    return answer;
  }
  if (st == STRATA_OK) {
    answer.offered = true;
  } else if (!is_known_status(st)) {
    answer.status = from_abi(st, AbiMessage(), "estimate");  // "unknown status", rule 4
  } else if (st != STRATA_NOT_SUPPORTED) {
    answer.status = InternalError(
        algo.id + " estimate returned " +
        (st == STRATA_IN_PROGRESS ? "IN_PROGRESS" : code_name(static_cast<Code>(st))) +
        "; only OK and NOT_SUPPORTED are allowed (plugin bug: see sdk/README.md rule 4)");
  }
  return answer;
}

std::optional<double> call_estimate(const AlgorithmEntry& algo,
                                    const strata_call_desc_t& call) {
  if (algo.table.estimate == nullptr) return std::nullopt;
  const EstimateAnswer answer = probe_estimate(algo, call);
  if (!answer.offered) return std::nullopt;
  if (std::isfinite(answer.seconds) && answer.seconds >= 0) return answer.seconds;
  if (!algo.bad_estimate_reported.exchange(true, std::memory_order_relaxed)) {
    STRATA_LOG_WARN("plugin {}: {} estimate() answered {} seconds, which is not a time; the "
                    "selector ranks it after every algorithm with an estimate (sdk/README.md "
                    "rule 5: a finite, non-negative number of seconds). Reported once.",
                    algo.plugin, algo.id, answer.seconds);
  }
  return std::nullopt;
}

StatusOr<void*> call_team_create(const AlgorithmEntry& algo,
                                 const strata_team_desc_t& team) {
  if (algo.table.team_create == nullptr) return static_cast<void*>(nullptr);
  void* state = nullptr;
  AbiMessage m;
  strata_status_t st;
  try {
    st = algo.table.team_create(algo.table.user_data, &team, &state, m.view());
  } catch (...) {
    return InternalError(algo.id + " team_create" + threw_across_abi());
  }
  if (st == STRATA_OK) return state;
  if (st == STRATA_NOT_SUPPORTED) {
    // A decline, like supports()'s: the plugin's own words are the reason.
    const std::string why = m.str();
    return NotSupportedError(why.empty() ? "declined without a reason" : why);
  }
  return from_abi(st, m, "team_create");
}

void call_team_destroy(const AlgorithmEntry& algo, void* team_state) {
  if (algo.table.team_destroy == nullptr) return;
  try {
    algo.table.team_destroy(algo.table.user_data, team_state);
  } catch (...) {
    STRATA_LOG_ERROR("{} team_destroy{}", algo.id, threw_across_abi());
  }
}

StatusOr<Operation> Operation::create(const AlgorithmEntry& algo, void* team_state,
                                      const strata_call_t& call, CallWatchdog::Slot* watch) {
  void* op = nullptr;
  WatchedCall watched(watch, algo, "create", call.deadline_ns, call.sequence);
  STRATA_RETURN_IF_ERROR(guarded(algo, "create", [&](AbiMessage& m) {
    return algo.table.create(algo.table.user_data, team_state, &call, &op, m.view());
  }));
  return Operation(algo, op, call, watch);
}

StartedCall Operation::start(const AlgorithmEntry& algo, void* team_state,
                             const strata_call_t& call, std::chrono::nanoseconds first_slice,
                             CallWatchdog::Slot* watch) {
  StartedCall out;
  if (algo.table.run == nullptr) {
    auto op = create(algo, team_state, call, watch);
    if (!op.ok()) {
      out.status = op.status();
      return out;
    }
    out.posted = true;
    out.status = op->post();
    if (!out.status.ok()) return out;
    StatusOr<bool> done = op->wait(first_slice);
    if (!done.ok()) {
      out.status = done.status();
    } else if (!*done) {
      out.running.emplace(std::move(*op));
    }
    return out;
  }
  AbiMessage m;
  void* op = nullptr;
  strata_status_t st;
  try {
    WatchedCall watched(watch, algo, "run", call.deadline_ns, call.sequence);
    st = algo.table.run(algo.table.user_data, team_state, &call, first_slice.count(), &op,
                        m.view());
  } catch (...) {
    out.status = InternalError(algo.id + " run" + threw_across_abi());
    out.posted = true;  // how far it got is unknown
    // A handle written before the throw counts as handed back (algorithm.h):
    // the call may still be running, so abort() it before destroy().
    if (op != nullptr) {
      Operation handed_back(algo, op, call, watch);  // its destructor calls destroy()
      handed_back.abort();
    }
    return out;
  }
  // Only now: a handle must be destroyed on every path from here on.
  std::optional<Operation> handed_back;
  if (op != nullptr) handed_back.emplace(Operation(algo, op, call, watch));
  out.posted = op != nullptr || st == STRATA_OK;
  if (st == STRATA_OK) return out;
  if (st == STRATA_IN_PROGRESS) {
    if (handed_back) {
      out.running.emplace(std::move(*handed_back));
    } else {
      out.status = InternalError(algo.id +
                                 " run returned IN_PROGRESS without an operation to continue "
                                 "(plugin bug: see sdk/README.md rule 4)");
      out.posted = true;
    }
    return out;
  }
  if (!is_known_status(st)) {
    out.status = from_abi(st, m, "run");
    out.posted = true;
    return out;
  }
  // The message already names the step that failed (create, post, wait).
  const std::string detail = m.str();
  out.status = Status(static_cast<Code>(st), detail.empty() ? "run failed" : detail);
  return out;
}

Operation::Operation(Operation&& other) noexcept
    : algo_(other.algo_),
      op_(other.op_),
      watch_(other.watch_),
      deadline_ns_(other.deadline_ns_),
      sequence_(other.sequence_) {
  other.op_ = nullptr;
}

Operation::~Operation() {
  if (op_ == nullptr) return;
  try {
    algo_->table.destroy(op_);
  } catch (...) {
    STRATA_LOG_ERROR("{} destroy{}", algo_->id, threw_across_abi());
  }
}

Status Operation::post() {
  WatchedCall watched(watch_, *algo_, "post", deadline_ns_, sequence_);
  return guarded(*algo_, "post", [&](AbiMessage& m) { return algo_->table.post(op_, m.view()); });
}

StatusOr<bool> Operation::test() {
  WatchedCall watched(watch_, *algo_, "test", deadline_ns_, sequence_);
  strata_status_t last = STRATA_OK;
  Status s = guarded(
      *algo_, "test",
      [&](AbiMessage& m) { return last = algo_->table.test(op_, m.view()); },
      /*allow_in_progress=*/true);
  if (!s.ok()) return s;
  return last == STRATA_OK;
}

StatusOr<bool> Operation::wait(std::chrono::nanoseconds slice) {
  if (!can_wait()) return test();
  WatchedCall watched(watch_, *algo_, "wait", deadline_ns_, sequence_);
  strata_status_t last = STRATA_OK;
  Status s = guarded(
      *algo_, "wait",
      [&](AbiMessage& m) { return last = algo_->table.wait(op_, slice.count(), m.view()); },
      /*allow_in_progress=*/true);
  if (!s.ok()) return s;
  return last == STRATA_OK;
}

void Operation::abort() {
  const int64_t deadline =
      watch_ == nullptr ? 0 : now_ns() + std::chrono::nanoseconds(kAbortAllowance).count();
  WatchedCall watched(watch_, *algo_, "abort", deadline, sequence_);
  try {
    algo_->table.abort(op_);
  } catch (...) {
    STRATA_LOG_ERROR("{} abort{}", algo_->id, threw_across_abi());
  }
}

}  // namespace strata
