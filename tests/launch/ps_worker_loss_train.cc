// Every task of a ParameterServerStrategy job in which worker 1 dies on
// purpose (tests/launch/ps_worker_loss_test.cc runs it under `strata launch
// -n 3 --ps 1 --tolerate-worker-failures`). The model is a linear
// regression, y = 3 x0 - 2 x1 + 1: 20 epochs of 15 batches, 300 steps that
// ps 0's coordinator hands out. Worker 1 raises SIGKILL on itself while it
// holds a leased step, so the ps must re-queue that step for the others.
//
// Usage: ps_worker_loss_train --marker-dir DIR
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <streambuf>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/data/dataset.h"
#include "core/runtime/runtime.h"
#include "core/strategy/parameter_server/parameter_server_strategy.h"
#include "core/train/mlp.h"

using namespace strata;

namespace {

constexpr int kDyingWorker = 1;
constexpr int kEpochs = 20;
constexpr int64_t kBatch = 16;
constexpr int64_t kTrainRows = 15 * kBatch;
// How long a survivor waits for worker 1 to die before training on
// without it (the test then fails: nobody was lost).
constexpr auto kDeathWait = std::chrono::seconds(30);

// `rows` examples of y = 3 x0 - 2 x1 + 1 with x uniform in [-1, 1].
std::pair<Tensor, Tensor> regression(int64_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x, y;
  for (int64_t i = 0; i < rows; ++i) {
    const float a = u(rng), c = u(rng);
    x.insert(x.end(), {a, c});
    y.push_back(3 * a - 2 * c + 1);
  }
  return {Tensor({rows, 2}, x), Tensor({rows, 1}, y)};
}

StatusOr<float> mse(const Mlp& network, const std::pair<Tensor, Tensor>& data) {
  STRATA_ASSIGN_OR_RETURN(Tensor out, network.predict(data.first));
  double sum = 0;
  for (int64_t i = 0; i < out.size(); ++i) {
    const double d = out[i] - data.second[i];
    sum += d * d;
  }
  return static_cast<float>(sum / static_cast<double>(out.size()));
}

// The trainer's progress stream, forwarded to stdout. Its first epoch line
// ("worker 1: epoch 2: ...") is written after the trainer took a step of a
// new epoch and before it pushed it, so at that moment the step is leased
// and not done: worker 1 dies there. The others wait there until it has,
// so worker 1 cannot be left without steps by a slow start.
class DeathPoint : public std::streambuf {
 public:
  DeathPoint(int worker, std::filesystem::path marker)
      : worker_(worker), marker_(std::move(marker)) {}

 private:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    line_ += static_cast<char>(c);
    if (c == '\n') {
      std::cout << line_ << std::flush;
      if (!passed_ && line_.find(": epoch ") != std::string::npos) {
        passed_ = true;
        if (worker_ == kDyingWorker) die();
        wait_for_death();
      }
      line_.clear();
    }
    return c;
  }

  [[noreturn]] void die() {
    std::ofstream(marker_) << "worker " << worker_ << " died\n";
    std::cout << "worker " << worker_ << ": raising SIGKILL on itself while it holds a leased step"
              << std::endl;
    ::raise(SIGKILL);
    ::_exit(99);  // unreachable: SIGKILL cannot be caught
  }

  void wait_for_death() {
    const auto until = std::chrono::steady_clock::now() + kDeathWait;
    while (!std::filesystem::exists(marker_) && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!std::filesystem::exists(marker_)) {
      std::cout << "worker " << worker_ << ": worker " << kDyingWorker
                << " did not die within 30 s; training on" << std::endl;
    }
  }

  int worker_;
  std::filesystem::path marker_;
  std::string line_;
  bool passed_ = false;
};

Status run(const std::filesystem::path& marker_dir) {
  Config config;
  config.devices.cpu_count = 1;
  config.strategy.kind = "parameter_server";
  ParameterServerConfig& ps_config = config.strategy.parameter_server;
  ps_config.scheme = "hogwild";
  ps_config.learning_rate = 0.1f;
  // Short, so the dead worker's steps come back soon; long enough that a
  // loaded machine does not declare a live worker dead.
  ps_config.worker_timeout = std::chrono::seconds(2);
  ps_config.request_timeout = std::chrono::seconds(20);
  ps_config.startup_timeout = std::chrono::seconds(60);
  RuntimeOptions options;
  options.discover_plugins = false;
  STRATA_ASSIGN_OR_RETURN(auto runtime, Runtime::create(config, options));
  STRATA_ASSIGN_OR_RETURN(auto strategy, ParameterServerStrategy::create(runtime));
  if (strategy->is_ps_task()) {
    STRATA_RETURN_IF_ERROR(strategy->serve());
    std::cout << "ps " << strategy->ps_index() << ": serve() returned; stopping" << std::endl;
    return Status::Ok();
  }
  const int worker = strategy->ps_worker_index();
  const auto train = regression(kTrainRows, 5);
  const auto test = regression(256, 11);
  STRATA_ASSIGN_OR_RETURN(Dataset data, Dataset::from_arrays({train.first, train.second}));
  STRATA_ASSIGN_OR_RETURN(data, data.batch(kBatch));
  STRATA_ASSIGN_OR_RETURN(Mlp network, Mlp::create({2, 1}, /*seed=*/3));
  STRATA_ASSIGN_OR_RETURN(float untrained, mse(network, test));
  DeathPoint death(worker, marker_dir / "worker_died");
  std::ostream progress(&death);
  STRATA_ASSIGN_OR_RETURN(ps::TrainerResult r,
                          strategy->fit(network, ps::TrainLoss::kMeanSquaredError, data, kEpochs,
                                        &progress));
  STRATA_ASSIGN_OR_RETURN(float trained, mse(network, test));
  std::cout << "worker " << worker << ": ran " << r.steps << " steps; center's test mse "
            << trained << " (untrained " << untrained << ")" << std::endl;
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "--marker-dir") {
    std::cerr << "usage: ps_worker_loss_train --marker-dir DIR\n";
    return 2;
  }
  Status status = run(argv[2]);
  if (!status.ok()) {
    std::cerr << "error: " << status << "\n";
    return 1;
  }
  return 0;
}
