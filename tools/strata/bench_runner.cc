#include "tools/strata/bench_runner.h"

#include <iostream>

#include "core/collective/algorithm_call.h"
#include "core/collective/selector.h"
#include "tools/strata/cli_common.h"

namespace strata::cli {

StatusOr<std::unique_ptr<BenchRunner>> BenchRunner::create(std::shared_ptr<Runtime> runtime,
                                                           std::string device_type, int devices,
                                                           std::string algorithm) {
  std::unique_ptr<BenchRunner> r(new BenchRunner());
  STRATA_ASSIGN_OR_RETURN(r->ops_, open_team(runtime, device_type, devices));
  r->runtime_ = std::move(runtime);
  r->device_type_ = std::move(device_type);
  r->devices_ = devices;
  r->algorithm_ = std::move(algorithm);
  return r;
}

StatusOr<std::optional<std::string>> BenchRunner::decline_reason(const BenchCall& call,
                                                                 uint64_t count,
                                                                 std::string& chosen) {
  const bool in_place = call.in_place && count > 0;  // as check_call decides it
  if (algorithm_.empty()) {
    auto sel = ops_->explain(call.op, call.dtype, count, call.redop, in_place, call.root);
    if (!sel.ok()) {
      if (sel.status().code() != Code::kNotSupported) return sel.status();
      return std::optional<std::string>(sel.status().message());  // every candidate declined
    }
    chosen = sel->chosen->id;
    for (const Candidate& c : sel->candidates) {
      if (c.algorithm == sel->chosen) estimate_ = c.estimate;
    }
    return std::optional<std::string>();
  }
  // A forced algorithm runs only if its own supports() accepts the call:
  // ask it the way the selector would, to tell a decline from a failure.
  const AlgorithmEntry* algo = runtime_->registry().find_algorithm(algorithm_);
  if (algo == nullptr) return NotFoundError("algorithm '" + algorithm_ + "' is gone");
  const Team& team = ops_->team();
  if (!Selector::scope_fits(*algo, team.desc())) {
    return std::optional<std::string>("its scope does not cover this team");
  }
  strata_call_desc_t desc{};
  desc.struct_size = sizeof desc;
  desc.op = to_abi(call.op);
  desc.dtype = to_abi(call.dtype);
  desc.redop = to_abi(call.redop);
  desc.count = count;
  desc.root = call.root;
  desc.in_place = in_place ? 1 : 0;
  desc.device_type = team.device_type();
  desc.team = &team.desc();
  const Support support = call_supports(*algo, desc);
  if (!support.accepted) return std::optional<std::string>(support.reason);
  estimate_ = call_estimate(*algo, desc);
  return std::optional<std::string>();
}

std::optional<std::string> BenchRunner::declines_every(const BenchCall& call,
                                                       const std::vector<uint64_t>& counts) {
  if (algorithm_.empty()) return std::nullopt;
  std::optional<std::string> reason;
  for (uint64_t count : counts) {
    std::string chosen;
    auto declined = decline_reason(call, count, chosen);
    // A failure here is reported by the sweep itself, row by row.
    if (!declined.ok() || !declined->has_value()) return std::nullopt;
    reason = **declined;
  }
  return reason;
}

Status BenchRunner::run_once(const BenchCall& call, const CallBuffers& b) {
  CallOptions options;
  options.algorithm = algorithm_;
  switch (call.op) {
    case CollectiveKind::kAllReduce:
      return ops_->all_reduce(b.inputs, b.outputs, call.redop, options);
    case CollectiveKind::kBroadcast:
      return ops_->broadcast(b.inputs, b.outputs, call.root, options);
    case CollectiveKind::kAllGather: return ops_->all_gather(b.inputs, b.outputs, options);
    case CollectiveKind::kReduceScatter:
      return ops_->reduce_scatter(b.inputs, b.outputs, call.redop, options);
    case CollectiveKind::kReduce:
      return ops_->reduce(b.inputs, b.outputs, call.redop, call.root, options);
    case CollectiveKind::kBarrier: return ops_->barrier(options);
  }
  return InvalidArgumentError("unknown collective");
}

void BenchRunner::fail(BenchRow& row, const Status& status) {
  row.outcome = BenchRow::Outcome::kFailed;
  row.reason = status.to_string();
  std::cerr << "strata bench: " << label() << " at " << row.size << " B: " << row.reason << "\n";
  // A failed call can leave the team unusable; later sizes get a fresh one.
  auto fresh = open_team(runtime_, device_type_, devices_);
  if (fresh.ok()) ops_ = std::move(*fresh);
}

bool BenchRunner::begin(const BenchCall& call, uint64_t count, ReplicaBuffers& buffers,
                        int warmup, BenchRow& row) {
  samples_.clear();
  row.size = bytes_for_count(call.op, count, call.dtype, devices_);
  row.count = row.size / dtype_size(call.dtype);  // nccl-tests: size / element size
  row.algorithm = label();
  estimate_.reset();
  auto declined = decline_reason(call, count, row.chosen);
  if (!declined.ok()) {
    fail(row, declined.status());
    return false;
  }
  if (declined->has_value()) {
    row.outcome = BenchRow::Outcome::kDeclined;
    row.reason = **declined;
    return false;
  }
  if (estimate_) row.model_us = *estimate_ * 1e6;
  const CallBuffers view = buffers.view(count);
  for (int i = 0; i < warmup; ++i) {
    Status s = run_once(call, view);
    if (s.code() == Code::kNotSupported) {  // e.g. create() declined
      row.outcome = BenchRow::Outcome::kDeclined;
      row.reason = s.message();
      return false;
    }
    if (!s.ok()) {
      fail(row, s);
      return false;
    }
  }
  return true;
}

bool BenchRunner::time_round(const BenchCall& call, uint64_t count, ReplicaBuffers& buffers,
                             int min_calls, int max_calls, double seconds, BenchRow& row) {
  const CallBuffers view = buffers.view(count);
  Status s = time_calls([&] { return run_once(call, view); }, min_calls, max_calls, seconds,
                        samples_);
  if (!s.ok()) fail(row, s);
  return s.ok();
}

void BenchRunner::finish(const BenchCall& call, uint64_t count, ReplicaBuffers& buffers,
                         const Pattern* pattern, BenchRow& row) {
  row.timing = summarize(samples_);
  if (pattern == nullptr || call.op == CollectiveKind::kBarrier) return;
  // The check: known inputs, sentinel outputs, one call, compare.
  Status s = buffers.prepare(*pattern, count);
  if (s.ok()) s = run_once(call, buffers.view(count));
  if (!s.ok()) {
    fail(row, s);
    return;
  }
  auto wrong = buffers.count_wrong(*pattern, count, call.root);
  if (!wrong.ok()) {
    fail(row, wrong.status());
    return;
  }
  row.wrong = *wrong;
}

}  // namespace strata::cli
