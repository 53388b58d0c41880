// Mirrored and sync-on-read variables with TF's rules for who may write
// what, where — for every strategy kind where the rule does not depend on it.
#include <gtest/gtest.h>

#include "core/strategy/distributed_variable.h"
#include "core/train/metrics.h"
#include "strategy_test_util.h"

namespace strata::testing {
namespace {

class VariablesTest : public StrategyTest {
 protected:
  VariablePtr make(VariableSynchronization sync, VariableAggregation agg) {
    auto v = DistributedVariable::create(*strategy_, "v", Tensor(Shape{2}, 1.0f), sync, agg);
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : nullptr;
  }
};

TEST_P(VariablesTest, MirroredCopiesLiveOnTheVariableDevices) {
  auto v = make(VariableSynchronization::kOnWrite, VariableAggregation::kNone);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(static_cast<size_t>(v->num_copies()), strategy_->variable_devices().size());
  ASSERT_TRUE(v->assign(Tensor(Shape{2}, 5.0f)).ok());  // cross-replica: every copy
  for (int r = 0; r < n(); ++r) EXPECT_FLOAT_EQ(v->value(r)[1], 5.0f);
}

TEST_P(VariablesTest, ReplicaWritesCombineByTheAggregation) {
  for (auto agg : {VariableAggregation::kSum, VariableAggregation::kMean,
                   VariableAggregation::kOnlyFirstReplica}) {
    auto v = make(VariableSynchronization::kOnWrite, agg);
    ASSERT_NE(v, nullptr);
    Status st = strategy_->run([&](ReplicaContext& ctx) {
      return v->assign(Tensor(Shape{2}, static_cast<float>(ctx.replica_id_in_sync_group() + 1)));
    });
    ASSERT_TRUE(st.ok()) << st;
    const float sum = static_cast<float>(n() * (n() + 1) / 2);
    const float want = agg == VariableAggregation::kSum    ? sum
                       : agg == VariableAggregation::kMean ? sum / static_cast<float>(n())
                                                           : 1.0f;
    for (int r = 0; r < n(); ++r) {
      EXPECT_FLOAT_EQ(v->value(r)[0], want) << aggregation_name(agg) << " replica " << r;
    }
  }
}

TEST_P(VariablesTest, ReplicaWritesWithoutAggregationAreRefusedWithManyReplicas) {
  auto v = make(VariableSynchronization::kOnWrite, VariableAggregation::kNone);
  ASSERT_NE(v, nullptr);
  Status st = strategy_->run([&](ReplicaContext&) { return v->assign(Tensor(Shape{2}, 2.0f)); });
  if (n() == 1) {
    EXPECT_TRUE(st.ok()) << st;  // one replica: nothing to disagree with
    EXPECT_FLOAT_EQ(v->value(0)[0], 2.0f);
  } else {
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("aggregation NONE"), std::string::npos) << st;
  }
}

TEST_P(VariablesTest, SyncOnReadCopiesAreLocalUntilRead) {
  auto v = make(VariableSynchronization::kOnRead, VariableAggregation::kSum);
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->restore(Tensor(Shape{2}, 0.0f)).ok());
  Status st = strategy_->run([&](ReplicaContext& ctx) {
    return v->assign_add(Tensor(Shape{2}, static_cast<float>(ctx.replica_id_in_sync_group())));
  });
  ASSERT_TRUE(st.ok()) << st;
  for (int r = 0; r < n(); ++r) EXPECT_FLOAT_EQ(v->value(r)[0], static_cast<float>(r));
  auto total = v->read_value();
  ASSERT_TRUE(total.ok());
  EXPECT_FLOAT_EQ((*total)[0], static_cast<float>(n() * (n() - 1) / 2));
  // Restoring a total splits it so that reading gives it back.
  ASSERT_TRUE(v->restore(Tensor(Shape{2}, 12.0f)).ok());
  EXPECT_FLOAT_EQ(v->read_value()->values()[1], 12.0f);
}

TEST_P(VariablesTest, SyncOnReadOnlyFirstReplicaReadsReplicaZerosCopy) {
  // In one process the job's first replica is this process's replica 0
  // (tests/multi_process: the chief's in a job of several workers).
  auto v = make(VariableSynchronization::kOnRead, VariableAggregation::kOnlyFirstReplica);
  ASSERT_NE(v, nullptr);
  Status st = strategy_->run([&](ReplicaContext& ctx) {
    return v->assign(Tensor(Shape{2}, static_cast<float>(ctx.replica_id_in_sync_group() + 5)));
  });
  ASSERT_TRUE(st.ok()) << st;
  auto first = v->read_value();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FLOAT_EQ((*first)[1], 5.0f);
  for (int r = 0; r < n(); ++r) EXPECT_FLOAT_EQ(v->value(r)[0], static_cast<float>(r + 5));
}

TEST_P(VariablesTest, MetricsAggregateOverEveryReplicasExamples) {
  MeanMetric loss(*strategy_, "loss");
  AccuracyMetric accuracy(*strategy_, "accuracy");
  Status st = strategy_->run([&](ReplicaContext& ctx) -> Status {
    const int r = ctx.replica_id_in_sync_group();
    // Replica r sees r+1 examples of value r; its logits pick class 0.
    STRATA_RETURN_IF_ERROR(loss.update_state(Tensor(Shape{r + 1}, static_cast<float>(r))));
    Tensor logits(Shape{r + 1, 2}, 0.0f);
    for (int i = 0; i <= r; ++i) logits.at(i, 0) = 1.0f;
    Tensor labels(Shape{r + 1}, r % 2 == 0 ? 0.0f : 1.0f);  // even replicas are right
    return accuracy.update_state(labels, logits);
  });
  ASSERT_TRUE(st.ok()) << st;
  double total = 0, count = 0, right = 0;
  for (int r = 0; r < n(); ++r) {
    total += r * (r + 1);
    count += r + 1;
    if (r % 2 == 0) right += r + 1;
  }
  EXPECT_FLOAT_EQ(*loss.result(), static_cast<float>(total / count));
  EXPECT_FLOAT_EQ(*accuracy.result(), static_cast<float>(right / count));
  ASSERT_TRUE(loss.reset_state().ok());
  EXPECT_FLOAT_EQ(*loss.result(), 0.0f);
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, VariablesTest, ::testing::ValuesIn(all_strategy_cases()),
                         case_name);

}  // namespace
}  // namespace strata::testing
