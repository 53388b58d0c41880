#include "core/train/model.h"

#include "core/train/hooks.h"
#include "core/train/losses.h"

namespace strata {

Model::Model(Strategy& strategy, LossKind loss, std::unique_ptr<Optimizer> optimizer)
    : strategy_(&strategy), loss_(loss), optimizer_(std::move(optimizer)) {}

Model::~Model() = default;

StatusOr<std::unique_ptr<Model>> Model::create(Mlp network, LossKind loss,
                                               std::unique_ptr<Optimizer> optimizer) {
  if (optimizer == nullptr) return InvalidArgumentError("Model::create: no optimizer");
  if (network.num_layers() == 0) return InvalidArgumentError("Model::create: no layers");
  Strategy& strategy = get_strategy();
  std::unique_ptr<Model> model(new Model(strategy, loss, std::move(optimizer)));
  const int n = strategy.num_local_replicas();
  model->replicas_.assign(static_cast<size_t>(n), network);
  const std::vector<std::string> names = network.parameter_names();
  const size_t copies = strategy.variable_devices().size();
  model->aliased_ = copies == static_cast<size_t>(n);
  auto make_variable = [&](size_t p) -> StatusOr<VariablePtr> {
    if (!model->aliased_) {
      return DistributedVariable::create(strategy, names[p], *network.parameters()[p]);
    }
    std::vector<Tensor*> own;  // each replica's own tensor is its copy
    for (Mlp& replica : model->replicas_) own.push_back(replica.parameters()[p]);
    return DistributedVariable::adopt(strategy, names[p], std::move(own));
  };
  for (size_t p = 0; p < names.size(); ++p) {
    STRATA_ASSIGN_OR_RETURN(VariablePtr v, make_variable(p));
    model->variables_.push_back(std::move(v));
  }
  model->loss_metric_ = std::make_unique<MeanMetric>(strategy, "loss");
  model->accuracy_metric_ = std::make_unique<AccuracyMetric>(strategy, "accuracy");
  return model;
}

Status Model::pull_parameters(int replica) {
  if (aliased_) return Status();
  std::vector<Tensor*> mine = replicas_[static_cast<size_t>(replica)].parameters();
  for (size_t p = 0; p < variables_.size(); ++p) *mine[p] = variables_[p]->value(replica);
  return Status();
}

namespace {

StatusOr<PerExampleLoss> per_example_loss(LossKind kind, const Tensor& out, const Tensor& labels) {
  return kind == LossKind::kMeanSquaredError ? mean_squared_error(out, labels)
                                             : sparse_softmax_cross_entropy(out, labels);
}

Status check_element(const Element& batch) {
  if (batch.size() < 2) {
    return InvalidArgumentError("training and evaluation batches need {features, labels}, got " +
                                std::to_string(batch.size()) + " component(s)");
  }
  return Status();
}

}  // namespace

StatusOr<Tensor> Model::train_step(ReplicaContext& ctx, const Element& batch,
                                   int64_t global_batch) {
  STRATA_RETURN_IF_ERROR(check_element(batch));
  const int r = ctx.local_replica_id();
  STRATA_RETURN_IF_ERROR(pull_parameters(r));
  Mlp& net = replicas_[static_cast<size_t>(r)];
  STRATA_ASSIGN_OR_RETURN(Tensor out, net.forward(batch[0]));
  STRATA_ASSIGN_OR_RETURN(PerExampleLoss loss, per_example_loss(loss_, out, batch[1]));
  // Dividing by the global batch makes the replicas' gradients add up to
  // the single-device gradient of the mean loss.
  STRATA_ASSIGN_OR_RETURN(Tensor grad_out, average_loss_gradient(loss.gradient, global_batch));
  STRATA_RETURN_IF_ERROR(net.backward(grad_out).status());
  STRATA_RETURN_IF_ERROR(optimizer_->apply_gradients(net.gradients(), variables_));
  STRATA_RETURN_IF_ERROR(loss_metric_->update_state(loss.loss));
  if (loss_ == LossKind::kSparseSoftmaxCrossEntropy) {
    STRATA_RETURN_IF_ERROR(accuracy_metric_->update_state(batch[1], out));
  }
  return compute_average_loss(loss.loss, global_batch);
}

Status Model::eval_step(ReplicaContext& ctx, const Element& batch, int64_t) {
  STRATA_RETURN_IF_ERROR(check_element(batch));
  const int r = ctx.local_replica_id();
  STRATA_RETURN_IF_ERROR(pull_parameters(r));
  STRATA_ASSIGN_OR_RETURN(Tensor out, replicas_[static_cast<size_t>(r)].predict(batch[0]));
  STRATA_ASSIGN_OR_RETURN(PerExampleLoss loss, per_example_loss(loss_, out, batch[1]));
  STRATA_RETURN_IF_ERROR(loss_metric_->update_state(loss.loss));
  if (loss_ == LossKind::kSparseSoftmaxCrossEntropy) {
    STRATA_RETURN_IF_ERROR(accuracy_metric_->update_state(batch[1], out));
  }
  return Status();
}

StatusOr<Evaluation> Model::evaluate(const Dataset& global_batches, int64_t steps) {
  STRATA_ASSIGN_OR_RETURN(DistributedDataset input, distribute_dataset(*strategy_, global_batches));
  return evaluate(input, steps);
}

StatusOr<Evaluation> Model::evaluate(const DistributedDataset& input, int64_t steps) {
  STRATA_RETURN_IF_ERROR(loss_metric_->reset_state());
  STRATA_RETURN_IF_ERROR(accuracy_metric_->reset_state());
  auto it = input.make_iterator();
  Evaluation result;
  for (int64_t step = 0; steps < 0 || step < steps; ++step) {
    STRATA_ASSIGN_OR_RETURN(std::optional<DistributedBatch> batch, it->next());
    if (!batch) break;
    STRATA_RETURN_IF_ERROR(strategy_->run(
        [&](ReplicaContext& ctx, const Element& mine) {
          return eval_step(ctx, mine, batch->global_batch_size);
        },
        batch->values));
  }
  // The loss metric counts every example every replica of every worker
  // scored: the job-wide figure, whatever the sharding policy or input.
  STRATA_ASSIGN_OR_RETURN(MetricReading loss, loss_metric_->read());
  result.loss = loss.result;
  result.examples = loss.count;
  STRATA_ASSIGN_OR_RETURN(result.accuracy, accuracy_metric_->result());
  return result;
}

StatusOr<Tensor> Model::predict(const Dataset& global_batches) {
  STRATA_ASSIGN_OR_RETURN(DistributedDataset input, distribute_dataset(*strategy_, global_batches));
  auto it = input.make_iterator();
  std::vector<Tensor> outputs;
  for (;;) {
    STRATA_ASSIGN_OR_RETURN(std::optional<DistributedBatch> batch, it->next());
    if (!batch) break;
    STRATA_ASSIGN_OR_RETURN(PerReplica<Tensor> out,
                            strategy_->run(
                                [&](ReplicaContext& ctx, const Element& mine) -> StatusOr<Tensor> {
                                  const int r = ctx.local_replica_id();
                                  STRATA_RETURN_IF_ERROR(pull_parameters(r));
                                  return replicas_[static_cast<size_t>(r)].predict(mine.at(0));
                                },
                                batch->values));
    STRATA_ASSIGN_OR_RETURN(Tensor joined, strategy_->gather(out, 0));
    outputs.push_back(std::move(joined));
  }
  if (outputs.empty()) return InvalidArgumentError("predict: the dataset is empty");
  return Tensor::concat_rows(outputs);
}

}  // namespace strata
