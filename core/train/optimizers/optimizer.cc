#include "core/train/optimizers/optimizer.h"

#include <algorithm>
#include <cmath>

namespace strata {

Optimizer::VariableState& Optimizer::state_for(const DistributedVariable& variable) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = state_.try_emplace(variable.name());
  if (fresh) {
    const std::vector<std::string> names = slot_names();
    it->second.copies.resize(static_cast<size_t>(variable.num_copies()));
    for (CopyState& copy : it->second.copies) {
      for (size_t s = 0; s < names.size(); ++s) {
        auto restored = pending_.find(variable.name() + "/" + names[s]);
        if (restored != pending_.end() && restored->second.shape() == variable.shape()) {
          copy.slots.push_back(restored->second);
        } else {
          copy.slots.emplace_back(variable.shape(), slot_initial_value(s));
        }
      }
    }
  }
  return it->second;
}

Status Optimizer::check(std::span<Tensor* const> grads, std::span<const VariablePtr> vars) const {
  if (grads.size() != vars.size()) {
    return InvalidArgumentError(std::string(name()) + ".apply_gradients: " +
                                std::to_string(grads.size()) + " gradient(s) for " +
                                std::to_string(vars.size()) + " variable(s)");
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    if (grads[i]->shape() != vars[i]->shape()) {
      return InvalidArgumentError(std::string(name()) + ".apply_gradients: the gradient of '" +
                                  vars[i]->name() + "' is " + grads[i]->describe() +
                                  " but the variable is " + shape_string(vars[i]->shape()));
    }
  }
  return Status();
}

void Optimizer::update_copy(DistributedVariable& v, int copy, const Tensor& g, int64_t t) {
  VariableState& state = state_for(v);
  update(v.mutable_value(copy), g, state.copies[static_cast<size_t>(copy)].slots, t);
}

Status Optimizer::apply_gradients(std::span<Tensor* const> grads,
                                  std::span<const VariablePtr> vars) {
  STRATA_RETURN_IF_ERROR(check(grads, vars));
  ReplicaContext* ctx = get_replica_context();
  if (ctx == nullptr) {  // cross-replica context: one update of every copy
    const int64_t t = ++iterations_;
    for (size_t i = 0; i < vars.size(); ++i) {
      for (int c = 0; c < vars[i]->num_copies(); ++c) update_copy(*vars[i], c, *grads[i], t);
    }
    return Status();
  }
  STRATA_RETURN_IF_ERROR(ctx->all_reduce(ReduceOp::kSum, grads));
  const int replica = ctx->local_replica_id();
  const int64_t t = iterations_.load() + 1;
  // Variables with a copy per replica: each replica updates its own, in
  // parallel. Variables with one copy (CentralStorage) are updated once, in
  // the cross-replica context, after every replica has its gradients.
  bool single_copies = false;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (vars[i]->num_copies() == 1 && ctx->num_replicas_in_sync() > 1) {
      single_copies = true;
      continue;
    }
    update_copy(*vars[i], vars[i]->num_copies() == 1 ? 0 : replica, *grads[i], t);
  }
  Status merged = ctx->merge_call([&](Strategy&) -> Status {
    if (single_copies) {
      for (size_t i = 0; i < vars.size(); ++i) {
        if (vars[i]->num_copies() == 1) update_copy(*vars[i], 0, *grads[i], t);
      }
    }
    ++iterations_;
    return Status();
  });
  return merged;
}

std::map<std::string, Tensor> Optimizer::state() const {
  std::lock_guard lock(mu_);
  std::map<std::string, Tensor> out;
  const std::vector<std::string> names = slot_names();
  for (const auto& [variable, state] : state_) {
    for (size_t s = 0; s < names.size(); ++s) {
      out.emplace(variable + "/" + names[s], state.copies.front().slots[s]);
    }
  }
  out.emplace("iterations", Tensor::scalar(static_cast<float>(iterations_.load())));
  return out;
}

Status Optimizer::restore_state(const std::map<std::string, Tensor>& state) {
  std::lock_guard lock(mu_);
  const std::vector<std::string> names = slot_names();
  if (auto it = state.find("iterations"); it != state.end()) {
    // Converting a float outside int64's range is undefined behaviour, so
    // a forged or damaged count is refused before the cast.
    const Tensor& count = it->second;
    const double v = count.size() == 1 ? static_cast<double>(count.values()[0]) : -1.0;
    if (count.rank() != 0 || !(v >= 0.0 && v < 9223372036854775808.0) || v != std::floor(v)) {
      return InvalidArgumentError(
          std::string(name()) + ": the checkpoint's iteration count " + count.describe() +
          (count.size() == 1 ? " = " + std::to_string(v) : std::string()) +
          " is not a whole number from 0 to 2^63 - 1");
    }
  }
  for (const auto& [key, value] : state) {
    if (key == "iterations") {
      iterations_ = static_cast<int64_t>(value.values()[0]);
      continue;
    }
    const size_t slash = key.rfind('/');
    auto slot = slash == std::string::npos
                    ? names.end()
                    : std::find(names.begin(), names.end(), key.substr(slash + 1));
    if (slot == names.end()) {
      return InvalidArgumentError(std::string(name()) + " has no slot named like '" + key +
                                  "' (its slots: " + std::to_string(names.size()) + ")");
    }
    // A variable not updated yet in this process gets the value when its
    // slots are created (resuming from a checkpoint).
    auto it = state_.find(key.substr(0, slash));
    if (it == state_.end()) {
      pending_.insert_or_assign(key, value);
      continue;
    }
    const size_t s = static_cast<size_t>(slot - names.begin());
    for (CopyState& copy : it->second.copies) {
      if (copy.slots[s].shape() != value.shape()) {
        return InvalidArgumentError("slot '" + key + "' is " + shape_string(copy.slots[s].shape()) +
                                    " but the checkpoint holds " + value.describe());
      }
      copy.slots[s] = value;
    }
  }
  return Status();
}

}  // namespace strata
