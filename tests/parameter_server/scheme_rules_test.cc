// Each scheme's update rule, checked numerically on vectors of one or two
// floats: given these pushes, the ps value (or the worker's) is exactly
// what the rule written above the scheme's class says.
#include <gtest/gtest.h>

#include <cmath>

#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

ShardState shard(std::vector<float> v) {
  ShardState s;
  s.sum.assign(v.size(), 0.0f);
  s.value = std::move(v);
  return s;
}

WorkerState worker(std::vector<float> x, int index = 0) {
  WorkerState w;
  w.worker = index;
  w.reset(x);
  return w;
}

// What the trainer does around each local step.
void local(const Scheme& s, WorkerState& w, std::vector<float> g) {
  s.local_step(w, g);
  ++w.steps_since_push;
}

TEST(SchemeRules, HogwildAppliesEveryGradientAtOnce) {
  auto s = make_hogwild_scheme(0.1f);
  WorkerState w = worker({1, 2});
  local(*s, w, {0.5f, -1.0f});
  ShardState c = shard({1, 2});
  s->apply_push(c, s->push_payload(w, {}), {});
  EXPECT_FLOAT_EQ(c.value[0], 1 - 0.1f * 0.5f);
  EXPECT_FLOAT_EQ(c.value[1], 2 + 0.1f);
  EXPECT_EQ(c.clock, 1);
  EXPECT_TRUE(s->pulls_after_push());
  EXPECT_FALSE(s->synchronous());
}

TEST(SchemeRules, DownpourSgdPushesTheAccumulatedChange) {
  auto s = make_downpour_scheme(0.1f, 2, /*adagrad=*/false);
  EXPECT_EQ(s->period(), 2);
  WorkerState w = worker({1, 2});
  local(*s, w, {1, 1});
  local(*s, w, {1, 3});
  EXPECT_FLOAT_EQ(w.x[0], 0.8f);
  EXPECT_FLOAT_EQ(w.x[1], 1.6f);
  std::vector<float> d = s->push_payload(w, {});
  EXPECT_NEAR(d[0], -0.2f, 1e-6);
  EXPECT_NEAR(d[1], -0.4f, 1e-6);
  ShardState c = shard({10, 20});
  s->apply_push(c, d, {});
  EXPECT_NEAR(c.value[0], 9.8f, 1e-5);
  EXPECT_NEAR(c.value[1], 19.6f, 1e-5);
}

TEST(SchemeRules, DownpourAdagradScalesByTheRootOfSquaredGradients) {
  auto s = make_downpour_scheme(0.1f, 1, /*adagrad=*/true);
  WorkerState w = worker({1});
  local(*s, w, {2});
  EXPECT_NEAR(w.x[0], 1 - 0.1f * 2 / (2 + 1e-7f), 1e-6);
  local(*s, w, {1});  // a = 4 + 1
  EXPECT_NEAR(w.x[0], 0.9f - 0.1f / std::sqrt(5.0f), 1e-6);
}

TEST(SchemeRules, AgnPushesTheMeanGradientOfItsWindow) {
  auto s = make_agn_scheme(0.1f, 2);
  WorkerState w = worker({5});
  local(*s, w, {1});
  local(*s, w, {3});
  EXPECT_FLOAT_EQ(w.x[0], 5 - 0.1f * 4);
  std::vector<float> m = s->push_payload(w, {});
  EXPECT_FLOAT_EQ(m[0], 2.0f);
  ShardState c = shard({5});
  s->apply_push(c, m, {});
  EXPECT_FLOAT_EQ(c.value[0], 5 - 0.1f * 2);
}

TEST(SchemeRules, SagnAppliesTheRoundsMeanWithEachWorkersRate) {
  auto s = make_sagn_scheme({0.1f, 0.2f}, 2);
  EXPECT_TRUE(s->synchronous());
  ShardState c = shard({5});
  s->apply_push(c, std::vector<float>{1}, PushInfo{0, 0});
  EXPECT_FALSE(s->complete_round(c, 2));
  EXPECT_FLOAT_EQ(c.value[0], 5);  // nothing moves before the round is full
  s->apply_push(c, std::vector<float>{2}, PushInfo{1, 0});
  EXPECT_TRUE(s->complete_round(c, 2));
  EXPECT_FLOAT_EQ(c.value[0], 5 - (0.1f * 1 + 0.2f * 2) / 2);
  EXPECT_EQ(c.round, 1);
  // Worker 1's local steps use its own rate.
  WorkerState w = worker({1}, 1);
  local(*s, w, {1});
  EXPECT_FLOAT_EQ(w.x[0], 0.8f);
}

TEST(SchemeRules, SyncWaitsForEveryActiveWorkerAndAveragesRateTimesGradient) {
  auto s = make_sync_sgd_scheme({0.5f, 0.25f});
  ShardState c = shard({1, 1});
  s->apply_push(c, std::vector<float>{1, 2}, PushInfo{0, 0});
  EXPECT_FALSE(s->complete_round(c, 2));
  s->apply_push(c, std::vector<float>{4, 0}, PushInfo{1, 0});
  EXPECT_TRUE(s->complete_round(c, 2));
  EXPECT_FLOAT_EQ(c.value[0], 1 - (0.5f * 1 + 0.25f * 4) / 2);
  EXPECT_FLOAT_EQ(c.value[1], 1 - (0.5f * 2) / 2);
  // A worker that left: the next round completes with the one still active.
  s->apply_push(c, std::vector<float>{2, 2}, PushInfo{0, 0});
  EXPECT_FALSE(s->complete_round(c, 2));
  EXPECT_TRUE(s->complete_round(c, 1));
  EXPECT_FLOAT_EQ(c.value[0], 0.25f - 0.5f * 2);
  EXPECT_EQ(c.round, 2);
}

TEST(SchemeRules, DynamicSgdDividesStalePushesByStalenessPlusOne) {
  auto s = make_dynamic_sgd_scheme(0.1f, 1);
  WorkerState w = worker({1});
  local(*s, w, {2});
  std::vector<float> d = s->push_payload(w, {});
  EXPECT_FLOAT_EQ(d[0], -0.2f);
  ShardState c = shard({0});
  c.clock = 3;
  s->apply_push(c, std::vector<float>{3}, PushInfo{0, /*clock_seen=*/1});  // tau = 2
  EXPECT_FLOAT_EQ(c.value[0], 1.0f);
  EXPECT_EQ(c.clock, 4);
  s->apply_push(c, std::vector<float>{3}, PushInfo{0, 4});  // fresh: tau = 0
  EXPECT_FLOAT_EQ(c.value[0], 4.0f);
}

TEST(SchemeRules, AeasgdMovesWorkerAndCenterTowardsEachOther) {
  auto s = make_aeasgd_scheme(0.1f, 1, 0.5f);
  EXPECT_TRUE(s->pulls_before_push());
  EXPECT_FALSE(s->pulls_after_push());
  WorkerState w = worker({2});
  local(*s, w, {0});
  const std::vector<float> center = {1};
  std::vector<float> e = s->push_payload(w, center);
  EXPECT_FLOAT_EQ(e[0], 0.5f);   // alpha * (x - w)
  EXPECT_FLOAT_EQ(w.x[0], 1.5f);  // x - e
  ShardState c = shard(center);
  s->apply_push(c, e, {});
  EXPECT_FLOAT_EQ(c.value[0], 1.5f);  // w + e
}

TEST(SchemeRules, AeamsgdTakesNesterovStepsLocally) {
  auto s = make_aeamsgd_scheme(0.1f, 2, 0.5f, 0.5f);
  WorkerState w = worker({2});
  local(*s, w, {1});  // v = -0.1; x += 0.5 * -0.1 - 0.1
  EXPECT_NEAR(w.x[0], 1.85f, 1e-6);
  local(*s, w, {1});  // v = -0.15; x += 0.5 * -0.15 - 0.1
  EXPECT_NEAR(w.x[0], 1.675f, 1e-6);
  std::vector<float> e = s->push_payload(w, std::vector<float>{0.675f});
  EXPECT_NEAR(e[0], 0.5f, 1e-6);
  EXPECT_NEAR(w.x[0], 1.175f, 1e-6);
}

TEST(SchemeRules, FactoryChecksPerWorkerRatesAndScheme) {
  ParameterServerConfig c;
  c.scheme = "sync";
  c.worker_learning_rates = {0.1f, 0.2f, 0.3f};
  auto bad = make_scheme(c, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("worker_learning_rates lists 3"), std::string::npos);
  c.scheme = "hogwild";
  EXPECT_FALSE(make_scheme(c, 3).ok());  // per-worker rates are sync / sagn only
  for (const char* name : {"hogwild", "downpour", "agn", "sagn", "sync", "dynamic_sgd", "aeasgd",
                           "aeamsgd"}) {
    ParameterServerConfig ok;
    ok.scheme = name;
    auto scheme = make_scheme(ok, 2);
    ASSERT_TRUE(scheme.ok()) << name << ": " << scheme.status();
    EXPECT_EQ((*scheme)->name(), name);
  }
}

}  // namespace
}  // namespace strata::ps
