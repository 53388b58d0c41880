// Metrics under MultiWorkerMirrored are the job's, on every worker: a
// sync-on-read variable read in the cross-replica context sums the copies
// of every worker, also where a worker drives a single device (issue 24:
// that shape used to return the worker's own copy), so History, evaluate()
// and the examples they count are the same on every worker and equal to
// Mirrored's on as many devices in one process. ONLY_FIRST_REPLICA is the
// job's first replica (the chief's) on every worker. Workers are threads over a
// memory store (process_world.h); tests/examples runs the same with real
// processes over grpc_ring and mpi.
#include <gtest/gtest.h>

#include <mutex>
#include <ostream>

#include "core/data/digits.h"
#include "core/strategy/distributed_dataset.h"
#include "core/strategy/multi_worker_mirrored_strategy.h"
#include "core/strategy/strategy_factory.h"
#include "core/train/model.h"
#include "process_world.h"
#include "worker_threads.h"

namespace strata {
namespace {

struct JobShape {
  int workers;
  int local;  // devices per worker
};

void PrintTo(const JobShape& shape, std::ostream* os) {
  *os << shape.workers << " workers x " << shape.local << " devices";
}

std::string shape_name(const ::testing::TestParamInfo<JobShape>& info) {
  return std::to_string(info.param.workers) + "x" + std::to_string(info.param.local);
}

class MultiWorkerMetricsTest : public ::testing::TestWithParam<JobShape> {
 protected:
  int replicas() const { return GetParam().workers * GetParam().local; }

  // Runs body(strategy) on one thread per worker of this shape's job.
  void run_workers(const std::shared_ptr<Runtime>& rt,
                   const std::function<void(MultiWorkerMirroredStrategy&)>& body) const {
    testing::run_workers(rt, GetParam().workers, GetParam().local, body);
  }
};

Dataset digit_batches(int64_t first, int64_t rows, int64_t batch) {
  auto path = find_digits_file(STRATA_SOURCE_DIR);
  EXPECT_TRUE(path.ok()) << path.status();
  auto data = load_digits_csv_gz(*path);
  EXPECT_TRUE(data.ok()) << data.status();
  auto ds = Dataset::from_arrays({data->features.slice_rows(first, first + rows),
                                  data->labels.slice_rows(first, first + rows)});
  EXPECT_TRUE(ds.ok()) << ds.status();
  return *ds->batch(batch);
}

// What a user reads off a run: each epoch's loss and accuracy, then the
// test figures and how many examples they are over.
struct Figures {
  std::vector<EpochLog> epochs;
  Evaluation test;
};

// 150 training rows in batches of 32 (a partial last batch) and 70 test rows.
constexpr int64_t kTestRows = 70;

Figures train_and_evaluate(Strategy& strategy) {
  Figures figures;
  std::unique_ptr<Model> model;
  {
    auto scope = strategy.scope();
    EXPECT_TRUE(scope.ok()) << scope.status();
    auto created = Model::create(*Mlp::create({64, 32, 10}, 7),
                                 LossKind::kSparseSoftmaxCrossEntropy, make_adam(0.01f));
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return figures;
    model = std::move(*created);
  }
  FitOptions options;
  options.epochs = 2;
  auto history = model->fit(digit_batches(0, 150, 32), options);
  EXPECT_TRUE(history.ok()) << history.status();
  if (history.ok()) figures.epochs = history->epochs;
  auto test = model->evaluate(digit_batches(1000, kTestRows, 32));
  EXPECT_TRUE(test.ok()) << test.status();
  if (test.ok()) figures.test = *test;
  return figures;
}

TEST_P(MultiWorkerMetricsTest, SyncOnReadVariablesReadTheWholeJob) {
  auto rt = testing::make_multi_process_runtime(replicas());
  ASSERT_NE(rt, nullptr);
  const int n = replicas();
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    auto scope = s.scope();
    ASSERT_TRUE(scope.ok()) << scope.status();
    for (VariableAggregation aggregation :
         {VariableAggregation::kSum, VariableAggregation::kMean}) {
      auto v = DistributedVariable::create(s, "v", Tensor::scalar(0.0f),
                                           VariableSynchronization::kOnRead, aggregation);
      ASSERT_TRUE(v.ok()) << v.status();
      // Replica g of the job adds g + 1: the job's total is n(n+1)/2.
      Status added = s.run([&](ReplicaContext& ctx) {
        return (*v)->assign_add(
            Tensor::scalar(static_cast<float>(ctx.replica_id_in_sync_group() + 1)));
      });
      ASSERT_TRUE(added.ok()) << added;
      auto read = (*v)->read_value();
      ASSERT_TRUE(read.ok()) << read.status();
      const float total = static_cast<float>(n * (n + 1) / 2);
      EXPECT_EQ(read->item(), aggregation == VariableAggregation::kSum ? total : total / n)
          << aggregation_name(aggregation) << " on worker " << s.worker_rank();
    }
  });
}

// ONLY_FIRST_REPLICA names one replica of the job, its first (the chief's
// first): every worker reads that copy, not its own first one (issue 24:
// worker w used to read replica w*local's value). Replica g writes 10(g+1).
TEST_P(MultiWorkerMetricsTest, OnlyFirstReplicaReadsTheChiefsFirstCopyOnEveryWorker) {
  auto rt = testing::make_multi_process_runtime(replicas());
  ASSERT_NE(rt, nullptr);
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    auto scope = s.scope();
    ASSERT_TRUE(scope.ok()) << scope.status();
    auto v = DistributedVariable::create(s, "first", Tensor::scalar(0.0f),
                                         VariableSynchronization::kOnRead,
                                         VariableAggregation::kOnlyFirstReplica);
    ASSERT_TRUE(v.ok()) << v.status();
    Status written = s.run([&](ReplicaContext& ctx) {
      return (*v)->assign(
          Tensor::scalar(10.0f * static_cast<float>(ctx.replica_id_in_sync_group() + 1)));
    });
    ASSERT_TRUE(written.ok()) << written;
    auto read = (*v)->read_value();
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->item(), 10.0f) << "worker " << s.worker_rank();
    // Reading leaves each replica's copy as it wrote it.
    for (int l = 0; l < s.num_local_replicas(); ++l) {
      EXPECT_EQ((*v)->value(l).item(), 10.0f * static_cast<float>(s.first_replica_id() + l + 1))
          << "worker " << s.worker_rank() << " copy " << l;
    }
  });
}

// The same rule for a mirrored variable written in a replica context: every
// copy of every worker gets the job's first replica's write, so the workers'
// copies stay equal (they used to take their own first replica's).
TEST_P(MultiWorkerMetricsTest, OnlyFirstReplicaWritesTheChiefsFirstValueOnEveryWorker) {
  auto rt = testing::make_multi_process_runtime(replicas());
  ASSERT_NE(rt, nullptr);
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    auto scope = s.scope();
    ASSERT_TRUE(scope.ok()) << scope.status();
    auto v = DistributedVariable::create(s, "first", Tensor::scalar(0.0f),
                                         VariableSynchronization::kOnWrite,
                                         VariableAggregation::kOnlyFirstReplica);
    ASSERT_TRUE(v.ok()) << v.status();
    Status written = s.run([&](ReplicaContext& ctx) {
      return (*v)->assign_add(
          Tensor::scalar(10.0f * static_cast<float>(ctx.replica_id_in_sync_group() + 1)));
    });
    ASSERT_TRUE(written.ok()) << written;
    for (int l = 0; l < (*v)->num_copies(); ++l) {
      EXPECT_EQ((*v)->value(l).item(), 10.0f) << "worker " << s.worker_rank() << " copy " << l;
    }
  });
}

TEST_P(MultiWorkerMetricsTest, EveryWorkerReportsTheFiguresOfMirroredOnAsManyDevices) {
  auto rt = testing::make_multi_process_runtime(replicas());
  ASSERT_NE(rt, nullptr);
  StrategyOptions mirrored_options;
  for (int d = 0; d < replicas(); ++d)
    mirrored_options.devices.push_back("cpu:" + std::to_string(d));
  auto mirrored = make_strategy(rt, "mirrored", mirrored_options);
  ASSERT_TRUE(mirrored.ok()) << mirrored.status();
  const Figures reference = train_and_evaluate(**mirrored);
  ASSERT_EQ(reference.epochs.size(), 2u);
  EXPECT_EQ(reference.test.examples, kTestRows);

  std::mutex mu;
  std::vector<Figures> per_worker(static_cast<size_t>(GetParam().workers));
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    Figures figures = train_and_evaluate(s);
    std::lock_guard lock(mu);
    per_worker[static_cast<size_t>(s.worker_rank())] = std::move(figures);
  });
  for (size_t w = 0; w < per_worker.size(); ++w) {
    const Figures& f = per_worker[w];
    ASSERT_EQ(f.epochs.size(), reference.epochs.size()) << "worker " << w;
    for (size_t e = 0; e < f.epochs.size(); ++e) {
      // Bit for bit the chief's: every worker reads the same reduction.
      EXPECT_EQ(f.epochs[e].loss, per_worker[0].epochs[e].loss) << "worker " << w << " epoch " << e;
      EXPECT_EQ(f.epochs[e].accuracy, per_worker[0].epochs[e].accuracy) << "worker " << w;
      // Mirrored's, but for the order of the float sums.
      EXPECT_NEAR(f.epochs[e].loss, reference.epochs[e].loss, 2e-5)
          << "worker " << w << " epoch " << e;
      EXPECT_NEAR(f.epochs[e].accuracy, reference.epochs[e].accuracy, 1e-6) << "worker " << w;
    }
    EXPECT_EQ(f.test.loss, per_worker[0].test.loss) << "worker " << w;
    EXPECT_EQ(f.test.accuracy, per_worker[0].test.accuracy) << "worker " << w;
    EXPECT_NEAR(f.test.loss, reference.test.loss, 2e-5) << "worker " << w;
    EXPECT_NEAR(f.test.accuracy, reference.test.accuracy, 1e-6) << "worker " << w;
    // The examples scored by the whole job, not by this worker.
    EXPECT_EQ(f.test.examples, kTestRows) << "worker " << w;
  }
}

TEST_P(MultiWorkerMetricsTest, EvaluateCountsTheExamplesTheWholeJobScored) {
  // Each worker's own input pipeline, of a different length (30, 40, 50
  // rows): a step's global batch is not this worker's rows times the worker
  // count, so only the job's metric count can say how many were scored.
  auto rt = testing::make_multi_process_runtime(replicas());
  ASSERT_NE(rt, nullptr);
  const auto [workers, local] = GetParam();
  int64_t job_rows = 0;
  for (int w = 0; w < workers; ++w) job_rows += 30 + 10 * w;
  std::mutex mu;
  std::vector<Evaluation> per_worker(static_cast<size_t>(workers));
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    std::unique_ptr<Model> model;
    {
      auto scope = s.scope();
      ASSERT_TRUE(scope.ok()) << scope.status();
      auto created = Model::create(*Mlp::create({64, 10}, 3), LossKind::kSparseSoftmaxCrossEntropy,
                                   make_sgd(0.1f));
      ASSERT_TRUE(created.ok()) << created.status();
      model = std::move(*created);
    }
    auto input = distribute_datasets_from_function(s, [](const InputContext& ctx) {
      const int64_t first = 200 * ctx.input_pipeline_id;
      return digit_batches(first, 30 + 10 * ctx.input_pipeline_id, 8);
    });
    ASSERT_TRUE(input.ok()) << input.status();
    auto evaluation = model->evaluate(*input);
    ASSERT_TRUE(evaluation.ok()) << evaluation.status();
    std::lock_guard lock(mu);
    per_worker[static_cast<size_t>(s.worker_rank())] = *evaluation;
  });
  for (size_t w = 0; w < per_worker.size(); ++w) {
    EXPECT_EQ(per_worker[w].examples, job_rows) << "worker " << w;
    EXPECT_EQ(per_worker[w].loss, per_worker[0].loss) << "worker " << w;
    EXPECT_EQ(per_worker[w].accuracy, per_worker[0].accuracy) << "worker " << w;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, MultiWorkerMetricsTest,
                         ::testing::Values(JobShape{3, 1}, JobShape{2, 1}, JobShape{2, 2}),
                         shape_name);

}  // namespace
}  // namespace strata
