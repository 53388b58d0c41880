// Workers and a ps as threads of one process over the in-process
// transport: every scheme trains a small regression to a low loss, and a
// worker that dies holding steps has them re-queued to the other.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "core/strategy/parameter_server/in_process_channel.h"
#include "core/strategy/parameter_server/parameter_server.h"
#include "core/strategy/parameter_server/parameter_server_trainer.h"

namespace strata::ps {
namespace {

using namespace std::chrono_literals;
const std::string kJobToken = "0123456789abcdef0123";

// y = 3 x0 - 2 x1 + 1, in batches of 16; `count` batches per epoch.
std::vector<std::vector<Element>> regression(int epochs, int count) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Element> batches;
  for (int b = 0; b < count; ++b) {
    std::vector<float> x, y;
    for (int i = 0; i < 16; ++i) {
      const float a = u(rng), c = u(rng);
      x.insert(x.end(), {a, c});
      y.push_back(3 * a - 2 * c + 1);
    }
    batches.push_back({Tensor({16, 2}, x), Tensor({16, 1}, y)});
  }
  return std::vector<std::vector<Element>>(static_cast<size_t>(epochs), batches);
}

struct Job {
  std::shared_ptr<ParameterServer> server;
  std::shared_ptr<const Scheme> scheme;
  ShardPlacement placement;
};

Job make_job(const ParameterServerConfig& config, int workers, std::chrono::nanoseconds timeout) {
  Job job;
  job.scheme = std::move(*make_scheme(config, workers));
  ParameterServerOptions o;
  o.num_workers = workers;
  o.coordinator = true;
  o.token = kJobToken;
  o.worker_timeout = timeout;
  job.server = std::make_shared<ParameterServer>(o, job.scheme);
  job.placement = *ShardPlacement::compute({"dense_0/kernel", "dense_0/bias"}, {2, 1}, 1,
                                           "round_robin", 4);
  return job;
}

std::unique_ptr<PsWorkerClient> client_for(const Job& job, int worker) {
  std::vector<PsTarget> targets(1);
  targets[0].main = std::move(*InProcessChannel::open(job.server, Hello{worker, kJobToken}));
  targets[0].heartbeat = std::move(*InProcessChannel::open(job.server, Hello{worker, kJobToken}));
  return std::make_unique<PsWorkerClient>(worker, std::move(targets), job.placement, 5s, 50ms);
}

float mse(Mlp& net, const Element& batch) {
  Tensor out = *net.predict(batch[0]);
  float sum = 0;
  for (int64_t i = 0; i < out.size(); ++i) sum += (out[i] - batch[1][i]) * (out[i] - batch[1][i]);
  return sum / static_cast<float>(out.size());
}

class EveryScheme : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryScheme, TwoWorkerThreadsTrainARegression) {
  ParameterServerConfig config;
  config.scheme = GetParam();
  config.learning_rate = config.scheme == "agn" || config.scheme == "sagn" ? 0.3f : 0.1f;
  config.communication_period = config.scheme == "hogwild" || config.scheme == "sync" ? 1 : 2;
  config.moving_rate = 0.3f;
  config.momentum = 0.5f;
  Job job = make_job(config, 2, 5s);
  const auto data = regression(/*epochs=*/60, /*count=*/4);
  std::vector<Mlp> nets(2, *Mlp::create({2, 1}, 3));
  const float untrained = mse(nets[0], data[0][0]);
  std::vector<StatusOr<TrainerResult>> results(2, InternalError("not run"));
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      auto client = client_for(job, w);
      ParameterServerTrainer trainer(*client, *job.scheme, 10s);
      results[static_cast<size_t>(w)] =
          trainer.fit(nets[static_cast<size_t>(w)], TrainLoss::kMeanSquaredError, data);
    });
  }
  for (auto& t : threads) t.join();
  int64_t steps = 0;
  for (auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status();
    steps += r->steps;
  }
  EXPECT_EQ(steps, 60 * 4);  // every step ran once, on one worker or the other
  EXPECT_TRUE(job.server->finished());  // both said done: the ps may stop
  // The asynchronous schemes' result depends on how the two workers
  // interleave, which a loaded machine skews: usually below 0.02 (against
  // about 5 untrained), but DOWNPOUR has ended at 0.062 and AEAMSGD at 0.23
  // (an ASan run on a loaded 2-core machine, where one worker thread got
  // few steps and its stale elastic pushes came last). Learning is what
  // this checks: a tenth of the untrained error, at least.
  EXPECT_LT(mse(nets[0], data[0][0]), 0.1f * untrained)
      << GetParam() << " (untrained " << untrained << ")";
  EXPECT_EQ(flatten_parameters(nets[0]), flatten_parameters(nets[1]));  // both hold the center
}

INSTANTIATE_TEST_SUITE_P(ParameterServer, EveryScheme,
                         ::testing::Values("hogwild", "downpour", "agn", "sagn", "sync",
                                           "dynamic_sgd", "aeasgd", "aeamsgd"));

TEST(PsTraining, StepsOfAWorkerThatDiedAreRunByTheOther) {
  ParameterServerConfig config;
  config.scheme = "sync";  // the survivor must not wait for the dead in rounds
  Job job = make_job(config, 2, 200ms);
  const auto data = regression(5, 4);
  {
    // Worker 1 takes two steps and dies without pushing or saying done.
    auto client = client_for(job, 1);
    ASSERT_TRUE(client->next_step(20).ok());
    ASSERT_TRUE(client->next_step(20).ok());
  }
  Mlp net = *Mlp::create({2, 1}, 3);
  auto client = client_for(job, 0);
  ParameterServerTrainer trainer(*client, *job.scheme, 10s);
  auto result = trainer.fit(net, TrainLoss::kMeanSquaredError, data);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->steps, 20);
  EXPECT_EQ(job.server->steps_requeued(), 2);
  EXPECT_TRUE(job.server->finished());
}

TEST(PsTraining, ADeadPsEndsTrainingWithAnErrorNamingIt) {
  ParameterServerConfig config;
  Job job = make_job(config, 1, 5s);
  std::vector<PsTarget> targets(1);
  auto main = std::move(*InProcessChannel::open(job.server, Hello{0, kJobToken}));
  InProcessChannel* severable = main.get();
  targets[0].main = std::move(main);
  targets[0].heartbeat = std::move(*InProcessChannel::open(job.server, Hello{0, kJobToken}));
  PsWorkerClient client(0, std::move(targets), job.placement, 5s, 50ms);
  ASSERT_TRUE(client.init(std::vector<float>{0, 0, 0}).ok());
  severable->sever();
  auto pulled = client.pull();
  ASSERT_FALSE(pulled.ok());
  EXPECT_EQ(pulled.status().code(), Code::kPeerFailed);
  EXPECT_NE(pulled.status().message().find("parameter server ps 0 at in-process is gone"),
            std::string::npos) << pulled.status();
}

}  // namespace
}  // namespace strata::ps
