// Cross-replica calls inside Strategy::run, for every strategy kind: the
// results must be the same whatever the strategy, and match arithmetic
// done by hand over the replicas' values.
#include <gtest/gtest.h>

#include <atomic>

#include "core/strategy/strategy.h"
#include "strategy_test_util.h"

namespace strata::testing {
namespace {

class ReplicaContextTest : public StrategyTest {
 protected:
  // Replica r's value: [r+1, 2(r+1), ...] with `size` elements.
  static Tensor value_of(int r, int64_t size) {
    Tensor t(Shape{size});
    for (int64_t i = 0; i < size; ++i) t[i] = static_cast<float>((r + 1) * (i + 1));
    return t;
  }
};

TEST_P(ReplicaContextTest, RunGivesEachReplicaItsIdAndItsValue) {
  const auto inputs = strategy_->distribute_values_from_function(
      [](const ValueContext& c) { return c.replica_id_in_sync_group * 10; });
  auto out = strategy_->run(
      [&](ReplicaContext& ctx, int input, int shared) {
        EXPECT_EQ(get_replica_context(), &ctx);
        EXPECT_EQ(&get_strategy(), strategy_.get());
        EXPECT_FALSE(in_cross_replica_context());
        return ctx.replica_id_in_sync_group() * 1000 + input + shared;
      },
      inputs, 7);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->num_replicas(), n());
  for (int r = 0; r < n(); ++r) EXPECT_EQ((*out)[r], r * 1000 + r * 10 + 7);
  EXPECT_TRUE(in_cross_replica_context());
}

TEST_P(ReplicaContextTest, AllReduceSumsAndAveragesOverReplicas) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMax}) {
    auto out = strategy_->run([&](ReplicaContext& ctx) {
      return ctx.all_reduce(op, value_of(ctx.replica_id_in_sync_group(), 1000));
    });
    ASSERT_TRUE(out.ok()) << out.status();
    for (int r = 0; r < n(); ++r) {
      for (int64_t i = 0; i < 1000; ++i) {
        const float sum = static_cast<float>(n() * (n() + 1) / 2 * (i + 1));
        const float want = op == ReduceOp::kSum    ? sum
                           : op == ReduceOp::kMean ? sum / static_cast<float>(n())
                                                   : static_cast<float>(n() * (i + 1));
        ASSERT_FLOAT_EQ((*out)[r][i], want) << reduce_op_name(op) << " replica " << r;
      }
    }
  }
}

TEST_P(ReplicaContextTest, BatchedAllReduceCombinesEveryTensorInPlace) {
  auto out = strategy_->run([&](ReplicaContext& ctx) -> StatusOr<std::vector<Tensor>> {
    const int r = ctx.replica_id_in_sync_group();
    std::vector<Tensor> grads = {value_of(r, 3), value_of(r, 70000), Tensor::scalar(1.0f)};
    std::vector<Tensor*> ptrs = {&grads[0], &grads[1], &grads[2]};
    STRATA_RETURN_IF_ERROR(ctx.all_reduce(ReduceOp::kSum, ptrs));
    return grads;
  });
  ASSERT_TRUE(out.ok()) << out.status();
  const float tri = static_cast<float>(n() * (n() + 1) / 2);
  for (int r = 0; r < n(); ++r) {
    const auto& g = (*out)[r];
    EXPECT_FLOAT_EQ(g[0][2], tri * 3);
    EXPECT_FLOAT_EQ(g[1][69999], tri * 70000);
    EXPECT_FLOAT_EQ(g[2].item(), static_cast<float>(n()));
  }
}

TEST_P(ReplicaContextTest, AllGatherJoinsRowsOfDifferentCountsInReplicaOrder) {
  auto out = strategy_->run([&](ReplicaContext& ctx) {
    const int r = ctx.replica_id_in_sync_group();
    Tensor rows(Shape{r + 1, 2}, static_cast<float>(r));  // replica r sends r+1 rows
    return ctx.all_gather(rows, 0);
  });
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& g = (*out)[n() - 1];
  ASSERT_EQ(g.dim(0), n() * (n() + 1) / 2);
  int64_t row = 0;
  for (int r = 0; r < n(); ++r) {
    for (int k = 0; k <= r; ++k, ++row) EXPECT_EQ(g.at(row, 1), static_cast<float>(r));
  }
}

TEST_P(ReplicaContextTest, MergeCallRunsOnceInCrossReplicaContextAndAnswersEveryone) {
  std::atomic<int> calls{0};
  auto out = strategy_->run([&](ReplicaContext& ctx) {
    return ctx.merge_call(
        [&](Strategy& s, const PerReplica<int>& ids) {
          ++calls;
          EXPECT_TRUE(in_cross_replica_context());
          EXPECT_EQ(&s, strategy_.get());
          int sum = 0;
          for (int id : ids.values()) sum += id;
          return sum;
        },
        ctx.replica_id_in_sync_group());
  });
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(calls.load(), 1);
  for (int r = 0; r < n(); ++r) {
    EXPECT_EQ((*out)[r], n() * (n() - 1) / 2);
  }
}

TEST_P(ReplicaContextTest, ReduceOverBatchAxisIsExactForAPartialBatch) {
  // 10 rows over the replicas, unevenly: a last partial batch.
  std::vector<Tensor> parts;
  float total = 0;
  int64_t rows = 0;
  for (int r = 0; r < n(); ++r) {
    const int64_t mine = r == n() - 1 ? 1 : 3;
    Tensor t(Shape{mine, 1});
    for (int64_t i = 0; i < mine; ++i) {
      t[i] = static_cast<float>(rows + 1);
      total += t[i];
      ++rows;
    }
    parts.push_back(t);
  }
  auto mean = strategy_->reduce(ReduceOp::kMean, PerReplica<Tensor>(parts), 0);
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_FLOAT_EQ(mean->item(), total / static_cast<float>(rows));
  auto sum = strategy_->reduce(ReduceOp::kSum, PerReplica<Tensor>(parts), 0);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_FLOAT_EQ(sum->item(), total);
  auto gathered = strategy_->gather(PerReplica<Tensor>(parts), 0);
  ASSERT_TRUE(gathered.ok()) << gathered.status();
  EXPECT_EQ(gathered->dim(0), rows);
  EXPECT_EQ(strategy_->experimental_local_results(PerReplica<Tensor>(parts)).size(),
            static_cast<size_t>(n()));
}

TEST_P(ReplicaContextTest, RepeatedStepsReuseTheReplicaThreads) {
  for (int step = 0; step < 50; ++step) {
    auto out = strategy_->run([&](ReplicaContext& ctx) {
      return ctx.all_reduce(ReduceOp::kSum, Tensor::scalar(static_cast<float>(step)));
    });
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_FLOAT_EQ((*out)[0].item(), static_cast<float>(step * n()));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, ReplicaContextTest,
                         ::testing::ValuesIn(all_strategy_cases()), case_name);

}  // namespace
}  // namespace strata::testing
