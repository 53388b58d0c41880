// Model's checkpoint side: what it saves, what it refuses to restore, and
// the position a restored checkpoint hands to the next fit().
#include <cmath>

#include "core/train/model.h"

namespace strata {
namespace {

std::string describe_source(const Checkpoint& checkpoint) {
  const std::string file = checkpoint.source.empty()
                               ? "the checkpoint"
                               : "checkpoint '" + checkpoint.source.string() + "'";
  return file + " (step " + std::to_string(checkpoint.step) + ")";
}

// The first NaN or infinity of `tensor`, described, or "" when all are finite.
std::string first_non_finite(const Tensor& tensor) {
  const std::span<const float> values = tensor.values();
  size_t count = 0, first = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) continue;
    if (count++ == 0) first = i;
  }
  if (count == 0) return "";
  return std::string(std::isnan(values[first]) ? "NaN" : "an infinity") + " at element " +
         std::to_string(first) + " (" + std::to_string(count) + " of its " +
         std::to_string(values.size()) + " values are not finite)";
}

}  // namespace

StatusOr<Checkpoint> Model::to_checkpoint() const {
  Checkpoint checkpoint;
  checkpoint.step = global_step_;
  for (const VariablePtr& v : variables_) {
    // A variable left out would make a checkpoint that restores nowhere.
    auto value = v->read_value();
    if (!value.ok()) {
      return value.status().prefixed("checkpoint of step " + std::to_string(global_step_) +
                                        ": reading variable '" + v->name() + "'");
    }
    checkpoint.tensors.emplace(v->name(), std::move(*value));
  }
  for (auto& [name, value] : optimizer_->state()) {
    checkpoint.tensors.emplace("optimizer/" + name, value);
  }
  checkpoint.metadata["strategy"] = std::string(strategy_->kind());
  checkpoint.metadata["replicas"] = std::to_string(strategy_->num_replicas_in_sync());
  checkpoint.metadata["optimizer"] = std::string(optimizer_->name());
  store_fit_position(position_, checkpoint.metadata);
  return checkpoint;
}

Status Model::check_restorable(const Checkpoint& checkpoint, const RestoreOptions& options) const {
  const std::string source = describe_source(checkpoint);
  if (checkpoint.step < 0) return InvalidArgumentError(source + ": the step is negative");
  for (const VariablePtr& v : variables_) {
    auto it = checkpoint.tensors.find(v->name());
    if (it == checkpoint.tensors.end()) {
      return NotFoundError(source + " has no variable '" + v->name() +
                           "'; was it written by another model?");
    }
    if (it->second.shape() != v->shape()) {
      return InvalidArgumentError(source + ": variable '" + v->name() + "' is " +
                                  shape_string(it->second.shape()) + " but the model's is " +
                                  shape_string(v->shape()) + "; was it written by another model?");
    }
  }
  if (!options.allow_non_finite) {
    for (const auto& [name, tensor] : checkpoint.tensors) {
      const std::string bad = first_non_finite(tensor);
      if (bad.empty()) continue;
      return InvalidArgumentError(
          source + ": tensor '" + name + "' holds " + bad +
          "; refusing to restore non-finite values (the run that saved them had diverged). "
          "Resume from an earlier checkpoint, or set RestoreOptions::allow_non_finite");
    }
  }
  return load_fit_position(checkpoint.metadata, source).status();
}

Status Model::restore(const Checkpoint& checkpoint, const RestoreOptions& options) {
  STRATA_RETURN_IF_ERROR(check_restorable(checkpoint, options));
  const std::string source = describe_source(checkpoint);
  STRATA_ASSIGN_OR_RETURN(std::optional<FitPosition> position,
                          load_fit_position(checkpoint.metadata, source));
  std::map<std::string, Tensor> slots;
  for (const auto& [name, value] : checkpoint.tensors) {
    if (name.starts_with("optimizer/")) slots.emplace(name.substr(10), value);
  }
  for (const VariablePtr& v : variables_) {
    STRATA_RETURN_IF_ERROR(v->restore(checkpoint.tensors.at(v->name())));
  }
  STRATA_RETURN_IF_ERROR(optimizer_->restore_state(slots));
  global_step_ = checkpoint.step;
  position_ = position.value_or(FitPosition{});
  resume_.reset();
  if (options.continue_fit) resume_ = PendingResume{std::move(position), source};
  return Status();
}

}  // namespace strata
