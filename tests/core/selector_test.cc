// Selection must be the same on every rank and explainable, so these tests
// pin the full candidate order and every verdict. The algorithms are plain C
// tables built here: supports() and estimate() answer from a Fake record.
#include "core/collective/selector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/collective/tuning_table.h"
#include "core/device/cpu_device_type.h"

namespace strata {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

struct Fake {
  bool has_estimate = false;
  double seconds = 0;
  strata_status_t verdict = STRATA_OK;  // what supports() returns
  const char* reason = "";              // written to msg when declining
};

strata_status_t fake_supports(void* ud, const strata_call_desc_t*, strata_message_t msg) {
  const auto* f = static_cast<const Fake*>(ud);
  if (f->verdict != STRATA_OK) std::snprintf(msg.data, msg.capacity, "%s", f->reason);
  return f->verdict;
}
strata_status_t fake_estimate(void* ud, const strata_call_desc_t*, double* seconds) {
  *seconds = static_cast<const Fake*>(ud)->seconds;
  return STRATA_OK;
}
// Selection never runs an operation; these only make the table valid.
strata_status_t fake_create(void*, void*, const strata_call_t*, void**, strata_message_t) {
  return STRATA_INTERNAL;
}
strata_status_t fake_progress(void*, strata_message_t) { return STRATA_INTERNAL; }
void fake_noop(void*) {}

class SelectorTest : public ::testing::Test {
 protected:
  SelectorTest() : cpu_(CpuDeviceOptions{}), cpu_table_(cpu_.table()) {
    cpu_id_ = registry_.add_device_type("core", cpu_table_).value();
    team_.struct_size = sizeof team_;
    team_.process_count = 1;
    team_.local_count = 2;
    team_.replica_count = 2;
    call_.struct_size = sizeof call_;
    call_.op = STRATA_ALL_REDUCE;
    call_.dtype = STRATA_F32;
    call_.count = 1024;  // 4 KiB
    call_.device_type = cpu_id_;
    call_.team = &team_;
  }

  void add(const char* plugin, const char* name, Fake fake = {},
           strata_op_t op = STRATA_ALL_REDUCE, uint32_t scope = STRATA_SCOPE_LOCAL) {
    Fake& f = fakes_.emplace_back(fake);
    strata_algorithm_t t{};
    t.struct_size = sizeof t;
    t.name = name;
    t.op = op;
    t.scope = scope;
    t.user_data = &f;
    t.supports = &fake_supports;
    t.estimate = f.has_estimate ? &fake_estimate : nullptr;
    t.create = &fake_create;
    t.post = t.test = &fake_progress;
    t.abort = t.destroy = &fake_noop;
    EXPECT_TRUE(registry_.add_algorithm(plugin, t).ok());
  }

  static Fake est(double seconds) { return Fake{true, seconds}; }
  static Fake declines(const char* reason, double seconds = 1e-3) {
    return Fake{true, seconds, STRATA_NOT_SUPPORTED, reason};
  }

  Selection select(std::string_view forced = {}) {
    auto sel = Selector(registry_, config_).select(call_, forced);
    EXPECT_TRUE(sel.ok()) << sel.status();
    return sel.ok() ? *sel : Selection{};
  }
  Status select_error(std::string_view forced = {}) {
    return Selector(registry_, config_).select(call_, forced).status();
  }

  static std::vector<std::string> ids(const Selection& s) {
    std::vector<std::string> out;
    for (const auto& c : s.candidates) out.push_back(c.algorithm->id);
    return out;
  }
  // "id: verdict" per candidate, the way `strata explain` lists them.
  static std::vector<std::string> listing(const Selection& s) {
    std::vector<std::string> out;
    for (const auto& c : s.candidates) out.push_back(c.algorithm->id + ": " + c.verdict);
    return out;
  }

  // Shares a table parsed from `entries` into the config, as
  // collectives.tuning does; its shape is this fixture's team and call.
  void tune(const std::string& entries) {
    auto table = TuningTable::parse("strata_tuning: 1\nentries:\n" + entries, "tuning.yaml");
    ASSERT_TRUE(table.ok()) << table.status();
    config_.tuning = std::make_shared<const TuningTable>(std::move(*table));
  }
  // One measured all_reduce on 1 process x 2 cpu devices, f32.
  static std::string measured(const std::string& id, const std::string& times_us) {
    return "  - {op: all_reduce, device_type: cpu, processes: 1, local_devices: 2, dtype: f32, "
           "algorithm: " + id + ", times_us: " + times_us + "}\n";
  }

  static CollectiveRule rule(std::string use, int line,
                             const std::function<void(CollectiveRule&)>& edit = {}) {
    CollectiveRule r;
    r.use = std::move(use);
    r.mark = SourceMark{"x.yaml", line, 7};
    if (edit) edit(r);
    return r;
  }

  CpuDeviceType cpu_;
  strata_device_type_t cpu_table_;
  uint32_t cpu_id_ = 0;
  Registry registry_;
  std::deque<Fake> fakes_;  // stable addresses for user_data
  CollectivesConfig config_;
  strata_team_desc_t team_{};
  strata_call_desc_t call_{};
};

TEST_F(SelectorTest, AutoOrdersByEstimateThenIdWithNoEstimateLast) {
  add("p", "slow", est(3e-3));
  add("p", "fast_b", est(1e-3));
  add("p", "fast_a", est(1e-3));
  add("p", "none_b");
  add("p", "none_a");
  add("p", "negative", est(-1));  // a nonsense estimate counts as none
  add("q", "other_op", est(0), STRATA_BROADCAST);
  const Selection s = select();
  EXPECT_THAT(listing(s), ElementsAre("p/all_reduce/fast_a: selected",
                                      "p/all_reduce/fast_b: not tried",
                                      "p/all_reduce/slow: not tried",
                                      "p/all_reduce/negative: not tried",
                                      "p/all_reduce/none_a: not tried",
                                      "p/all_reduce/none_b: not tried"));
  EXPECT_EQ(s.chosen->id, "p/all_reduce/fast_a");
  EXPECT_EQ(s.reason, "lowest estimate (1.000 ms) among the algorithms that accept the call");
  EXPECT_EQ(s.candidates[0].source, "auto");
  EXPECT_EQ(s.candidates[2].estimate, 3e-3);
  EXPECT_FALSE(s.candidates[3].estimate.has_value());
}

TEST_F(SelectorTest, DeclineMovesToTheNextCandidateTheSameWayEveryTime) {
  add("p", "a", declines("count must be a multiple of 8", 1e-6));
  add("p", "b", Fake{true, 2e-6, STRATA_NOT_SUPPORTED, ""});
  add("p", "c", Fake{true, 3e-6, STRATA_INTERNAL, "boom"});  // broken: skipped too
  add("p", "d", est(4e-6));
  add("p", "e", est(5e-6));
  const Selection s = select();
  EXPECT_EQ(s.chosen->id, "p/all_reduce/d");
  EXPECT_THAT(listing(s), ElementsAre("p/all_reduce/a: declined: count must be a multiple of 8",
                                      "p/all_reduce/b: declined: declined without a reason",
                                      "p/all_reduce/c: declined: supports: boom",
                                      "p/all_reduce/d: selected", "p/all_reduce/e: not tried"));
  EXPECT_EQ(s.reason, "lowest estimate (4.00 us) among the algorithms that accept the call");
  // Every rank must reach the same choice: nothing in the list may vary.
  const Selection again = select();
  EXPECT_EQ(listing(again), listing(s));
  EXPECT_EQ(again.chosen, s.chosen);
}

TEST_F(SelectorTest, KnownDeclinesAreSkippedWithWhereAndWhy) {
  // What core learnt elsewhere (a team_create that declined the team, a
  // peer's supports()) is a decline like supports()'s own, without asking.
  add("p", "a", est(1e-6));
  add("p", "b", declines("too small", 2e-6));
  add("p", "c", est(3e-6));
  KnownDeclines known;
  known[registry_.find_algorithm("p/all_reduce/a")] = "at team_create on worker 1: no route";
  auto walked = Selector(registry_, config_).walk(call_, {}, &known);
  ASSERT_TRUE(walked.ok()) << walked.status();
  EXPECT_EQ(walked->chosen->id, "p/all_reduce/c");
  EXPECT_THAT(listing(*walked),
              ElementsAre("p/all_reduce/a: declined at team_create on worker 1: no route",
                          "p/all_reduce/b: declined: too small", "p/all_reduce/c: selected"));
  // Only b's decline is this rank's own supports() answer.
  EXPECT_FALSE(walked->candidates[0].declined_by_supports);
  EXPECT_TRUE(walked->candidates[1].declined_by_supports);
  // With c known to decline too, the walk ends without a winner, not an error.
  known[registry_.find_algorithm("p/all_reduce/c")] = "at team_create: no scratch";
  auto none = Selector(registry_, config_).walk(call_, {}, &known);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->chosen, nullptr);
  EXPECT_EQ(Selector::no_winner(call_, *none).message(),
            "no algorithm accepts all_reduce of 1024 x f32:\n"
            "  p/all_reduce/a: declined at team_create on worker 1: no route\n"
            "  p/all_reduce/b: declined: too small\n"
            "  p/all_reduce/c: declined at team_create: no scratch");
}

TEST_F(SelectorTest, AllDeclinedListsEveryReason) {
  add("p", "a", declines("needs a power of two replicas"));
  add("p", "b", declines("f32 only on Tuesdays", 2e-3));
  const Status st = select_error();
  EXPECT_EQ(st.code(), Code::kNotSupported);
  EXPECT_EQ(st.message(),
            "no algorithm accepts all_reduce of 1024 x f32:\n"
            "  p/all_reduce/a: declined: needs a power of two replicas\n"
            "  p/all_reduce/b: declined: f32 only on Tuesdays");

  call_.op = STRATA_BROADCAST;
  EXPECT_EQ(select_error().message(),
            "no algorithm accepts broadcast of 1024 x f32: (no algorithm is registered for "
            "this op)");
}

TEST_F(SelectorTest, ScopeMismatchIsADecline) {
  add("p", "cross", est(1e-6), STRATA_ALL_REDUCE, STRATA_SCOPE_CROSS_PROCESS);
  add("p", "local", est(1e-3));
  const Selection s = select();
  EXPECT_EQ(s.chosen->id, "p/all_reduce/local");
  // Out of scope goes last, whatever its estimate, and is always listed as
  // declined (never "not tried"): explain shows why it could not run.
  EXPECT_THAT(listing(s), ElementsAre("p/all_reduce/local: selected",
                                      "p/all_reduce/cross: declined: its scope does not cover "
                                      "1 process(es) x 2 local device(s)"));

  const AlgorithmEntry& cross = *registry_.find_algorithm("p/all_reduce/cross");
  strata_team_desc_t shape = team_;
  shape.process_count = 4;
  shape.local_count = 1;
  EXPECT_TRUE(Selector::scope_fits(cross, shape));
  shape.local_count = 2;  // several devices per process needs its own bit
  EXPECT_FALSE(Selector::scope_fits(cross, shape));
}

TEST_F(SelectorTest, RulesComeFirstInOrderAndMatchOnEveryField) {
  add("p", "auto_best", est(1e-9));
  add("p", "small", est(1));
  add("p", "exact", est(1));
  add("p", "catch_all", est(1));
  add("p", "bcast", est(1), STRATA_BROADCAST);
  using R = CollectiveRule&;
  config_.rules = {rule("p/broadcast/bcast", 1, [](R r) { r.op = CollectiveKind::kBroadcast; }),
                   rule("p/all_reduce/small", 2, [](R r) { r.max_bytes = 4095; }),
                   rule("p/all_reduce/small", 3, [](R r) { r.min_bytes = 4097; }),
                   rule("p/all_reduce/small", 4, [](R r) { r.dtype = DType::kF64; }),
                   rule("p/all_reduce/small", 5, [](R r) { r.device_type = "cuda"; }),
                   rule("p/all_reduce/exact", 6, [](R r) {  // every field, bounds inclusive
                     r.op = CollectiveKind::kAllReduce;
                     r.min_bytes = r.max_bytes = 4096;
                     r.dtype = DType::kF32;
                     r.device_type = "cpu";
                   }),
                   rule("p/all_reduce/catch_all", 7),
                   rule("p/all_reduce/exact", 8)};  // listed once, as rules[5]
  const Selection s = select();
  EXPECT_THAT(ids(s), ElementsAre("p/all_reduce/exact", "p/all_reduce/catch_all",
                                  "p/all_reduce/auto_best", "p/all_reduce/small"));
  EXPECT_EQ(s.candidates[0].source, "collectives.rules[5] (x.yaml:6:7)");
  EXPECT_EQ(s.candidates[1].source, "collectives.rules[6] (x.yaml:7:7)");
  EXPECT_EQ(s.reason, "chosen by collectives.rules[5] (x.yaml:6:7)");

  // An unregistered device type matches no rule that names one: rules[5] is
  // skipped and `exact` comes from rules[7] instead.
  call_.device_type = cpu_id_ + 100;
  EXPECT_THAT(ids(select()), ElementsAre("p/all_reduce/catch_all", "p/all_reduce/exact",
                                         "p/all_reduce/auto_best", "p/all_reduce/small"));
  call_.device_type = cpu_id_;
  fakes_[2] = declines("not today");  // the first rule's algorithm declines
  EXPECT_EQ(select().chosen->id, "p/all_reduce/catch_all");
}

TEST_F(SelectorTest, ImplementationPrefersByNamePluginOrId) {
  add("p", "fast", est(1e-3));
  add("p", "ring", est(5e-3));
  add("q", "ring", est(2e-3));
  add("q", "tree", est(9e-3));
  config_.implementation = "ring";
  Selection s = select();
  EXPECT_THAT(ids(s), ElementsAre("q/all_reduce/ring", "p/all_reduce/ring", "p/all_reduce/fast",
                                  "q/all_reduce/tree"));
  EXPECT_EQ(s.candidates[0].source, "implementation: ring");
  EXPECT_EQ(s.candidates[2].source, "auto");
  EXPECT_EQ(s.reason, "chosen by implementation: ring");

  config_.implementation = "q";
  EXPECT_THAT(ids(select()), ElementsAre("q/all_reduce/ring", "q/all_reduce/tree",
                                         "p/all_reduce/fast", "p/all_reduce/ring"));
  config_.implementation = "p/all_reduce/ring";
  EXPECT_EQ(select().chosen->id, "p/all_reduce/ring");

  config_.rules = {rule("q/all_reduce/tree", 9)};  // a rule still beats the override
  EXPECT_EQ(select().chosen->id, "q/all_reduce/tree");
}

TEST_F(SelectorTest, ForcedAlgorithm) {
  add("p", "a", est(1e-3));
  add("p", "b", declines("too big"));
  add("q", "x", est(1e-3), STRATA_BROADCAST);
  const Selection s = select("p/all_reduce/a");
  EXPECT_THAT(ids(s), ElementsAre("p/all_reduce/a"));
  EXPECT_EQ(s.candidates[0].source, "forced");
  EXPECT_EQ(s.reason, "chosen by forced");

  const Status unknown = select_error("nope/all_reduce/x");
  EXPECT_EQ(unknown.code(), Code::kNotFound);
  EXPECT_EQ(unknown.message(),
            "no algorithm 'nope/all_reduce/x' is registered; `strata info` lists them");
  const Status wrong_op = select_error("q/broadcast/x");
  EXPECT_EQ(wrong_op.code(), Code::kInvalidArgument);
  EXPECT_EQ(wrong_op.message(), "algorithm 'q/broadcast/x' implements broadcast, not all_reduce");
  const Status declined = select_error("p/all_reduce/b");  // no fallback when forced
  EXPECT_EQ(declined.code(), Code::kNotSupported);
  EXPECT_EQ(declined.message(),
            "no algorithm accepts all_reduce of 1024 x f32:\n  p/all_reduce/b: declined: too big");
}

// The fixture's call is 4 KiB; the tables below measure 1 KiB to 16 KiB.
TEST_F(SelectorTest, AutoRanksMeasuredAlgorithmsFirstFastestFirst) {
  add("p", "a", est(1e-6));  // the model's favourite, measured slower than b
  add("p", "b", est(5e-6));
  add("p", "c", est(2e-6));  // not measured
  add("p", "d", est(3e-6));  // not measured
  tune(measured("p/all_reduce/a", "{1024: 30, 16384: 30}") +
       measured("p/all_reduce/b", "{1024: 10, 16384: 10}"));
  Selection s = select();
  EXPECT_THAT(listing(s), ElementsAre("p/all_reduce/b: selected", "p/all_reduce/a: not tried",
                                      "p/all_reduce/c: not tried", "p/all_reduce/d: not tried"));
  EXPECT_EQ(s.reason,
            "fastest measured (10.00 us in tuning.yaml) among the algorithms that accept the call");
  EXPECT_THAT(s.candidates[0].measured, Optional(DoubleNear(10e-6, 1e-15)));
  EXPECT_THAT(s.candidates[1].measured, Optional(DoubleNear(30e-6, 1e-15)));
  EXPECT_EQ(s.candidates[2].measured, std::nullopt);
  EXPECT_EQ(s.candidates[0].estimate, 5e-6);  // the model's view is still shown

  // A measured algorithm that declines hands over to the next measured one.
  fakes_[1] = declines("not this size", 5e-6);
  s = select();
  EXPECT_EQ(s.chosen->id, "p/all_reduce/a");
  EXPECT_EQ(s.reason,
            "fastest measured (30.00 us in tuning.yaml) among the algorithms that accept the call");
}

TEST_F(SelectorTest, ModelOrderReturnsWhereNothingWasMeasured) {
  add("p", "a", est(1e-6));
  add("p", "b", est(5e-6));
  add("p", "c", est(2e-6));
  tune(measured("p/all_reduce/b", "{1024: 10, 16384: 10}"));
  const std::string model_reason =
      "lowest estimate (1.00 us) among the algorithms that accept the call; tuning.yaml has no "
      "measurement that covers it";
  auto expect_model_order = [&](const char* what) {
    const Selection s = select();
    EXPECT_THAT(ids(s), ElementsAre("p/all_reduce/a", "p/all_reduce/c", "p/all_reduce/b")) << what;
    EXPECT_EQ(s.reason, model_reason) << what;
    for (const auto& c : s.candidates) EXPECT_EQ(c.measured, std::nullopt) << what;
  };
  call_.count = 1 << 20;  // 4 MiB: above the measured range
  expect_model_order("above the range");
  call_.count = 128;  // 512 B: below it
  expect_model_order("below the range");
  call_.count = 1024;
  team_.local_count = 4;  // another team shape
  expect_model_order("4 local devices");
  team_.local_count = 2;
  call_.dtype = STRATA_F64;  // 4 KiB again, but no f64 or other 8-byte type was measured
  call_.count = 512;
  expect_model_order("f64");
}

TEST_F(SelectorTest, ARuleBeatsAFasterMeasurement) {
  add("p", "a", est(1e-6));
  add("p", "b", est(5e-6));
  tune(measured("p/all_reduce/a", "{1024: 50, 16384: 50}") +
       measured("p/all_reduce/b", "{1024: 10, 16384: 10}"));
  config_.rules = {rule("p/all_reduce/a", 3)};
  const Selection s = select();
  EXPECT_THAT(listing(s), ElementsAre("p/all_reduce/a: selected", "p/all_reduce/b: not tried"));
  EXPECT_EQ(s.reason, "chosen by collectives.rules[0] (x.yaml:3:7)");
  EXPECT_THAT(s.candidates[0].measured, Optional(DoubleNear(50e-6, 1e-15)));
}

TEST_F(SelectorTest, ImplementationListIsOrderedByMeasurementToo) {
  add("p", "ring", est(1e-6));
  add("q", "ring", est(5e-6));
  add("r", "ring", est(2e-6));  // not measured: after the measured ones
  add("p", "fast", est(1e-9));
  tune(measured("p/all_reduce/ring", "{1024: 40, 16384: 40}") +
       measured("q/all_reduce/ring", "{1024: 20, 16384: 20}") +
       measured("p/all_reduce/fast", "{1024: 1, 16384: 1}"));
  config_.implementation = "ring";
  const Selection s = select();
  EXPECT_THAT(ids(s), ElementsAre("q/all_reduce/ring", "p/all_reduce/ring", "r/all_reduce/ring",
                                  "p/all_reduce/fast"));
  EXPECT_EQ(s.reason, "chosen by implementation: ring");
  EXPECT_EQ(s.candidates[3].source, "auto");
}

TEST_F(SelectorTest, ForcedAlgorithmShowsItsMeasurement) {
  add("p", "a", est(1e-6));
  tune(measured("p/all_reduce/a", "{4096: 7}"));
  const Selection s = select("p/all_reduce/a");
  EXPECT_THAT(s.candidates[0].measured, Optional(DoubleNear(7e-6, 1e-15)));
  EXPECT_EQ(s.reason, "chosen by forced");
}

TEST(CallBytesTest, LargerSidePerReplica) {
  strata_team_desc_t team{};
  team.replica_count = 4;
  auto bytes = [&](strata_op_t op, strata_dtype_t dtype, uint64_t count) {
    strata_call_desc_t call{};
    call.op = op;
    call.dtype = dtype;
    call.count = count;
    call.team = &team;
    return call_bytes(call);
  };
  EXPECT_EQ(bytes(STRATA_ALL_GATHER, STRATA_F64, 10), 320u);  // output: 10 x 4 replicas x 8 B
  EXPECT_EQ(bytes(STRATA_REDUCE_SCATTER, STRATA_F64, 10), 320u);  // input
  EXPECT_EQ(bytes(STRATA_ALL_REDUCE, STRATA_F64, 10), 80u);
  EXPECT_EQ(bytes(STRATA_BROADCAST, STRATA_BF16, 3), 6u);
  EXPECT_EQ(bytes(STRATA_BARRIER, STRATA_F32, 0), 0u);
}

}  // namespace
}  // namespace strata
