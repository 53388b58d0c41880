#include "sdk/conformance/estimate_case.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "core/collective/algorithm_call.h"
#include "sdk/conformance/case_spec.h"

namespace strata::conformance {
namespace {

constexpr const char* kRule5 =
    "violates rule 5 (selection is pure: estimate answers a finite, non-negative number of "
    "seconds that depends only on the call, the same on every call and every rank)";

// One answer as text that round-trips exactly: "1.25e-05", "declined", or
// the error.
std::string answer_text(const EstimateAnswer& a) {
  if (!a.status.ok()) return "error: " + a.status.message();
  if (!a.offered) return "declined";
  std::ostringstream out;
  out.precision(17);
  out << a.seconds;
  return out.str();
}

bool same(const EstimateAnswer& a, const EstimateAnswer& b) {
  return answer_text(a) == answer_text(b);
}

std::vector<CaseSpec> shapes(const std::string& algorithm, CollectiveKind op, int world,
                             const SuiteOptions& o) {
  std::vector<DType> dtypes;
  for (const auto& n : o.dtypes) dtypes.push_back(*parse_dtype(n));  // checked by parse_options
  if (dtypes.empty()) dtypes.assign(kAllDTypes.begin(), kAllDTypes.end());
  std::vector<std::optional<ReduceOp>> redops{std::nullopt};
  if (is_reducing(op)) {
    redops.clear();
    for (const auto& n : o.redops) redops.push_back(*parse_reduce_op(n));
    if (redops.empty()) redops.assign(kAllReduceOps.begin(), kAllReduceOps.end());
  }
  std::vector<CaseSpec> out;
  CaseSpec spec;
  spec.algorithm = algorithm;
  spec.op = op;
  spec.world = world;
  for (const uint64_t count : op == CollectiveKind::kBarrier ? std::vector<uint64_t>{0}
                                                             : o.counts) {
    spec.count = count;
    for (const DType dtype : dtypes) {
      spec.dtype = dtype;
      for (const auto& redop : redops) {
        spec.redop = redop;
        for (const bool in_place : {false, true}) {
          if (in_place && (count == 0 || op == CollectiveKind::kBarrier)) continue;
          spec.in_place = in_place;
          out.push_back(spec);
        }
      }
    }
  }
  return out;
}

strata_call_desc_t describe(const CaseSpec& spec, const Team& team) {
  strata_call_desc_t d{};
  d.struct_size = sizeof d;
  d.op = to_abi(spec.op);
  d.dtype = to_abi(spec.dtype);
  d.redop = to_abi(spec.redop.value_or(ReduceOp::kSum));
  d.count = spec.count;
  d.root = 0;
  d.in_place = spec.in_place ? 1 : 0;
  d.device_type = team.device_type();
  d.team = &team.desc();
  return d;
}

}  // namespace

std::string EstimateCase::check_locally(const AlgorithmEntry& algo, const Team& team,
                                        std::string& digest) {
  const std::vector<CaseSpec> all = shapes(algorithm_, algo.op, world_, suite_.options());
  std::vector<EstimateAnswer> first;
  for (const CaseSpec& spec : all) {
    const strata_call_desc_t desc = describe(spec, team);
    EstimateAnswer a = probe_estimate(algo, desc);
    const EstimateAnswer again = probe_estimate(algo, desc);
    const std::string where = "estimate for " + spec.describe();
    if (!a.status.ok()) return where + ": " + a.status.message();
    if (a.offered && !(std::isfinite(a.seconds) && a.seconds >= 0)) {
      return where + " answered " + answer_text(a) + " seconds, which is not a time: " + kRule5;
    }
    if (!same(a, again)) {
      return where + " answered " + answer_text(a) + ", then " + answer_text(again) +
             " when asked again at once: " + kRule5;
    }
    digest += spec.test_name() + " " + answer_text(a) + "\n";
    first.push_back(std::move(a));
  }
  // Once more after every other shape: an answer that depends on what was
  // asked before (a cache, a counter) shows up here.
  for (size_t i = 0; i < all.size(); ++i) {
    const EstimateAnswer later = probe_estimate(algo, describe(all[i], team));
    if (!same(first[i], later)) {
      return "estimate for " + all[i].describe() + " answered " + answer_text(first[i]) +
             " at first and " + answer_text(later) + " after the other " +
             std::to_string(all.size() - 1) + " shapes: " + kRule5;
    }
  }
  return "";
}

std::string EstimateCase::compare_ranks(const std::string& digest) {
  ProcessWorld* world = suite_.world();
  if (world == nullptr) return "";
  auto all = world->exchange(digest, 3 * suite_.options().timeout + std::chrono::seconds(10));
  if (!all.ok()) return all.status().message();
  for (size_t r = 1; r < all->size(); ++r) {
    if ((*all)[r] == (*all)[0]) continue;
    std::istringstream mine((*all)[0]);
    std::istringstream theirs((*all)[r]);
    std::string a;
    std::string b;
    while (std::getline(mine, a) && std::getline(theirs, b) && a == b) {
    }
    // Lines are "<shape> <answer>", alike in shape on every rank.
    const auto split = [](const std::string& line) {
      const auto at = line.find(' ');
      return std::pair{line.substr(0, at), at == std::string::npos ? "" : line.substr(at + 1)};
    };
    const auto [shape, zero] = split(a);
    const auto theirs_answer = split(b).second;
    return "the ranks disagree on the estimate for " + shape + ": rank " + std::to_string(r) +
           " answered " + theirs_answer + ", rank 0 answered " + zero + ": " + kRule5;
  }
  return "";
}

void EstimateCase::TestBody() {
  if (ProcessWorld* world = suite_.world(); world != nullptr && !world->lost().empty()) {
    GTEST_SKIP() << world->lost();
  }
  const AlgorithmEntry* algo = suite_.runtime()->registry().find_algorithm(algorithm_);
  ASSERT_NE(algo, nullptr) << algorithm_ << " is no longer registered";
  auto made = suite_.make_harness(world_);
  CallOutcome built;
  if (!made.ok()) {
    built = {CallOutcome::Kind::kSetupFailed,
             "the suite could not build a team of " + std::to_string(world_) + " for " +
                 algorithm_ + ": " + made.status().to_string()};
  }
  built = suite_.agree(built);  // every rank takes the same path from here
  if (built.failed()) {
    suite_.note_broken_team();
    FAIL() << built.message;
  }
  std::string digest;
  std::string problem = check_locally(*algo, (*made)->ops().team(), digest);
  // Every rank compares, so that all of them record the same verdict.
  const std::string across = compare_ranks(digest);
  if (problem.empty()) problem = across;
  CallOutcome mine;
  if (!problem.empty()) mine = {CallOutcome::Kind::kMismatch, problem};
  const CallOutcome verdict = suite_.agree(mine);
  if (verdict.failed()) FAIL() << verdict.message;
}

}  // namespace strata::conformance
