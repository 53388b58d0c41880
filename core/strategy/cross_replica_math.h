// Host arithmetic behind Strategy::reduce and gather: folding one tensor
// over a dimension, and joining tensors along one.
#ifndef STRATA_CORE_STRATEGY_CROSS_REPLICA_MATH_H_
#define STRATA_CORE_STRATEGY_CROSS_REPLICA_MATH_H_

#include <span>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/tensor/tensor.h"

namespace strata {

// Folds `value` over dimension `axis` with op (kMean folds as kSum; the
// caller divides, since a mean across replicas needs the total count).
// An empty dimension gives op's identity.
StatusOr<Tensor> fold_axis(const Tensor& value, int axis, ReduceOp op);

// Joins tensors along `axis`; the other dimensions must agree.
StatusOr<Tensor> concat_axis(std::span<const Tensor> parts, int axis);

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_CROSS_REPLICA_MATH_H_
