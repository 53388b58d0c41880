// The main demo: an MLP classifier on the UCI handwritten digits (1,797 8x8
// images, examples/data/digits.csv.gz) trained with MirroredStrategy on
// virtual CPU devices, the way the seeds train with Keras:
//
//   with strategy.scope(): model = ...; model.compile(...)
//   model.fit(train, epochs=...); model.evaluate(test)
//
// The strategy comes from a YAML config: --config FILE, else STRATA_CONFIG
// (what `strata launch --config FILE` sets), else configs/mirrored_cpu.yaml
// (docs/CONFIG.md), so a config switches it to one_device, central_storage,
// multi_worker_mirrored, ...
// Under parameter_server the same program is every task of the job
// (strata launch -n 2 --ps 1): a ps task serves until the workers are
// done, a worker trains with the config's scheme through
// ParameterServerStrategy::fit and evaluates the trained center.
// Checkpoints go to --model-dir every 50 steps; a run started again with the
// same directory continues where the last checkpoint stood (epoch, batch,
// shuffle order), so a run killed and restarted ends with the weights of
// one never interrupted. --model-dir is refused under parameter_server,
// whose ps tasks hold the variables.
//
// Usage: train_digits [--config FILE] [--epochs N] [--model-dir DIR] [--data FILE]
//                     [--fresh-start-if-damaged] [--kill-after-step N]
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "core/data/digits.h"
#include "core/runtime/runtime.h"
#include "core/strategy/parameter_server/parameter_server_strategy.h"
#include "core/strategy/strategy_factory.h"
#include "core/train/hooks.h"
#include "core/train/model.h"

using namespace strata;

namespace {

struct Options {
  std::string config;  // --config; "" when not given
  std::string data;
  std::string model_dir;
  int epochs = 15;
  int64_t global_batch = 64;
  bool fresh_start_if_damaged = false;
  int64_t kill_after_step = -1;
};

// Fault injection for the resume tests: the process dies by SIGKILL right
// after global step N, as a killed job does (no end hooks, no final save).
class KillAfterStepHook final : public Hook {
 public:
  explicit KillAfterStepHook(int64_t step) : step_(step) {}
  StatusOr<bool> after_step(const StepInfo& step) override {
    if (step.global_step >= step_) {
      std::cout << "killed after step " << step.global_step << std::endl;
      ::raise(SIGKILL);
    }
    return false;
  }

 private:
  int64_t step_;
};

// The parameter_server path: the scheme trains `network` across the job,
// then this worker evaluates the center it ends with.
Status train_with_parameter_servers(ParameterServerStrategy& ps, Mlp& network,
                                    const Dataset& train, const Dataset& test, const Options& o,
                                    const Evaluation& before) {
  STRATA_ASSIGN_OR_RETURN(ps::TrainerResult r,
                          ps.fit(network, ps::TrainLoss::kSparseSoftmaxCrossEntropy, train,
                                 o.epochs, &std::cout));
  std::unique_ptr<Model> model;
  {
    STRATA_ASSIGN_OR_RETURN(StrategyScope scope, ps.scope());
    STRATA_ASSIGN_OR_RETURN(model, Model::create(network, LossKind::kSparseSoftmaxCrossEntropy,
                                                 make_sgd()));
  }
  STRATA_ASSIGN_OR_RETURN(Evaluation after, model->evaluate(test));
  std::cout << "worker " << ps.ps_worker_index() << " (" << ps.config().scheme << "): ran "
            << r.steps << " steps, " << r.pushes << " pushes in " << r.seconds
            << " s; center's test loss " << after.loss << ", accuracy " << after.accuracy
            << " on " << after.examples << " images\n";
  if (!(after.loss < before.loss)) return InternalError("the test loss did not fall");
  return Status();
}

Status run(const Options& o) {
  const ConfigChoice config = choose_config(
      o.config, std::filesystem::path(STRATA_SOURCE_DIR) / "configs" / "mirrored_cpu.yaml");
  STRATA_ASSIGN_OR_RETURN(auto runtime, Runtime::from_choice(config));
  STRATA_ASSIGN_OR_RETURN(auto strategy, make_strategy_from_config(runtime));
  std::cout << "config: " << config.describe() << "\n"
            << "strategy: " << strategy->describe() << "\n";
  ParameterServerStrategy* ps = nullptr;
  if (strategy->kind() == "parameter_server") {
    // Refused on every task (ps and worker alike), before any serves.
    if (!o.model_dir.empty()) {
      return InvalidArgumentError(
          "--model-dir '" + o.model_dir + "' is not supported under parameter_server: the "
          "variables live in the ps tasks' shards, which ParameterServerStrategy::fit neither "
          "checkpoints nor restores; run without --model-dir");
    }
    ps = static_cast<ParameterServerStrategy*>(strategy.get());
    std::cout << "parameter server job: " << ps->describe_job() << "\n";
    if (ps->is_ps_task()) {
      STRATA_RETURN_IF_ERROR(ps->serve());
      std::cout << "ps " << ps->ps_index() << ": every worker is done; stopping\n";
      return Status();
    }
  }

  std::string file = o.data;
  if (file.empty()) {
    STRATA_ASSIGN_OR_RETURN(file, find_digits_file(STRATA_SOURCE_DIR));
  }
  STRATA_ASSIGN_OR_RETURN(DigitsData digits, load_digits_csv_gz(file));
  // A fixed split: the first 1,437 images train, the last 360 test.
  const int64_t split = 1437;
  const int64_t rows = digits.features.dim(0);
  STRATA_ASSIGN_OR_RETURN(Dataset train, Dataset::from_arrays({digits.features.slice_rows(0, split),
                                                               digits.labels.slice_rows(0, split)}));
  STRATA_ASSIGN_OR_RETURN(train, train.shuffle(split, /*seed=*/42));
  STRATA_ASSIGN_OR_RETURN(train, train.batch(o.global_batch));
  STRATA_ASSIGN_OR_RETURN(train, train.prefetch(2));
  STRATA_ASSIGN_OR_RETURN(Dataset test, Dataset::from_arrays({digits.features.slice_rows(split, rows),
                                                              digits.labels.slice_rows(split, rows)}));
  STRATA_ASSIGN_OR_RETURN(test, test.batch(o.global_batch));
  std::cout << "data: " << split << " training and " << rows - split << " test images of 8x8, "
            << "global batch " << o.global_batch << " split over "
            << strategy->num_replicas_in_sync() << " replica(s)\n";

  STRATA_ASSIGN_OR_RETURN(Mlp network, Mlp::create({64, 64, 10}, /*seed=*/7));
  auto make_model = [&](const Mlp& weights) -> StatusOr<std::unique_ptr<Model>> {
    STRATA_ASSIGN_OR_RETURN(StrategyScope scope, strategy->scope());
    return Model::create(weights, LossKind::kSparseSoftmaxCrossEntropy, make_adam(0.005f));
  };
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, make_model(network));
  STRATA_ASSIGN_OR_RETURN(Evaluation before, model->evaluate(test));
  std::cout << "before training: test loss " << before.loss << ", accuracy " << before.accuracy
            << "\n";
  if (ps != nullptr) return train_with_parameter_servers(*ps, network, train, test, o, before);

  FitOptions fit;
  fit.epochs = o.epochs;
  fit.progress = &std::cout;
  auto counter = std::make_shared<StepCounterHook>(nullptr, 20);
  fit.hooks = {std::make_shared<NanLossHook>(), counter};
  std::shared_ptr<CheckpointSaverHook> saver;
  if (!o.model_dir.empty()) {
    ResumeOptions resume;
    resume.fresh_start_if_all_damaged = o.fresh_start_if_damaged;
    saver = std::make_shared<CheckpointSaverHook>(
        std::make_shared<CheckpointManager>(o.model_dir, 3), 50, std::nullopt, resume);
    fit.hooks.push_back(saver);
  }
  if (o.kill_after_step >= 0) {
    fit.hooks.push_back(std::make_shared<KillAfterStepHook>(o.kill_after_step));
  }
  STRATA_ASSIGN_OR_RETURN(History history, model->fit(train, fit));
  if (saver != nullptr && saver->resumed()) {
    std::cout << "(resumed from " << o.model_dir << " at step " << saver->restored_step() << ")\n";
  }
  STRATA_ASSIGN_OR_RETURN(Evaluation after, model->evaluate(test));
  std::cout << "after " << history.global_step << " steps (" << counter->steps_per_second()
            << " steps/s): test loss " << after.loss << ", accuracy " << after.accuracy << " on "
            << after.examples << " images\n";
  if (history.epochs.empty()) {
    std::cout << "(the checkpoint had already finished all " << o.epochs << " epochs)\n";
    return Status();
  }
  // Training must have helped: the test loss against the untrained model's.
  // (Comparing the first and last epochs' training losses cannot judge a
  // one-epoch run, where they are the same epoch, nor a resumed run whose
  // first epoch may be a few steps.)
  if (!(after.loss < before.loss)) {
    return InternalError("the test loss did not fall (" + std::to_string(before.loss) + " before " +
                         "training, " + std::to_string(after.loss) + " after)");
  }
  return Status();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const char* usage =
      "usage: train_digits [--config FILE] [--epochs N] [--batch N] [--model-dir DIR] "
      "[--data FILE]\n"
      "                    [--fresh-start-if-damaged] [--kill-after-step N]\n"
      "Trains an MLP on the UCI digits with the distribution strategy of a YAML config:\n"
      "--config FILE, else $STRATA_CONFIG, else configs/mirrored_cpu.yaml.\n"
      "  --model-dir DIR            checkpoint every 50 steps; a rerun continues from the last\n"
      "  --fresh-start-if-damaged   when every checkpoint in DIR is damaged, start from step 0\n"
      "                             instead of failing\n"
      "  --kill-after-step N        fault injection: SIGKILL this process after global step N\n";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    } else if (arg == "--config" && has_value && argv[i + 1][0] != '\0') {
      o.config = argv[++i];
    } else if (arg == "--epochs" && has_value) {
      o.epochs = std::atoi(argv[++i]);
    } else if (arg == "--batch" && has_value) {
      o.global_batch = std::atoll(argv[++i]);
    } else if (arg == "--model-dir" && has_value) {
      o.model_dir = argv[++i];
    } else if (arg == "--data" && has_value) {
      o.data = argv[++i];
    } else if (arg == "--fresh-start-if-damaged") {
      o.fresh_start_if_damaged = true;
    } else if (arg == "--kill-after-step" && has_value) {
      o.kill_after_step = std::atoll(argv[++i]);
    } else {
      std::cerr << "train_digits: bad argument '" << arg << "'\n" << usage;
      return 2;
    }
  }
  if (o.epochs <= 0 || o.global_batch <= 0) {
    std::cerr << "train_digits: --epochs and --batch must be positive\n";
    return 2;
  }
  Status status = run(o);
  if (!status.ok()) {
    std::cerr << "error: " << status << "\n";
    return 1;
  }
  return 0;
}
