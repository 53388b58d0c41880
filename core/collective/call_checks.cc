#include "core/collective/call_checks.h"

#include <string>

#include "core/runtime/runtime.h"

namespace strata {
namespace {

std::string replica(int i) { return "replica " + std::to_string(i); }

// Input and output sizes, in elements, for a call of `count`.
std::pair<uint64_t, uint64_t> expected_counts(CollectiveKind kind, uint64_t count, int replicas) {
  const uint64_t whole = count * static_cast<uint64_t>(replicas);
  switch (kind) {
    case CollectiveKind::kAllGather: return {count, whole};
    case CollectiveKind::kReduceScatter: return {whole, count};
    default: return {count, count};
  }
}

bool in_place_for(CollectiveKind kind, const Buffer& in, const Buffer& out, int global_rank,
                  uint64_t count) {
  const auto* i = static_cast<const char*>(in.data);
  const auto* o = static_cast<const char*>(out.data);
  const uint64_t slot = static_cast<uint64_t>(global_rank) * count * dtype_size(in.dtype);
  switch (kind) {
    case CollectiveKind::kAllGather: return i == o + slot;
    case CollectiveKind::kReduceScatter: return o == i + slot;
    default: return i == o;
  }
}

bool overlaps(const Buffer& a, const Buffer& b) {
  const auto* a0 = static_cast<const char*>(a.data);
  const auto* b0 = static_cast<const char*>(b.data);
  return a.bytes() > 0 && b.bytes() > 0 && a0 < b0 + b.bytes() && b0 < a0 + a.bytes();
}

}  // namespace

StatusOr<CallShape> check_call(const Team& team, CollectiveKind kind,
                               std::span<const Buffer> inputs,
                               std::span<const Buffer> outputs, int root) {
  const int n = team.local_count();
  // Named only in an error: the success path of a small call is counted
  // in nanoseconds (docs/performance/mpi_per_call.md).
  auto name = [kind] { return std::string(collective_name(kind)); };
  if (static_cast<int>(inputs.size()) != n || static_cast<int>(outputs.size()) != n) {
    return InvalidArgumentError(name() + " needs one input and one output per local replica (" +
                                std::to_string(n) + "); got " + std::to_string(inputs.size()) +
                                " inputs and " + std::to_string(outputs.size()) + " outputs");
  }
  if ((kind == CollectiveKind::kBroadcast || kind == CollectiveKind::kReduce) &&
      (root < 0 || root >= team.replica_count())) {
    return InvalidArgumentError(name() + " root " + std::to_string(root) +
                                " is not a replica (0.." +
                                std::to_string(team.replica_count() - 1) + ")");
  }
  CallShape shape;
  shape.dtype = inputs[0].dtype;
  shape.count = kind == CollectiveKind::kReduceScatter ? outputs[0].count : inputs[0].count;
  const auto [in_count, out_count] = expected_counts(kind, shape.count, team.replica_count());
  int in_place = 0;
  int first_in_place = -1;  // for the message when replicas disagree
  int first_not_in_place = -1;
  for (int i = 0; i < n; ++i) {
    const Buffer& in = inputs[static_cast<size_t>(i)];
    const Buffer& out = outputs[static_cast<size_t>(i)];
    const int global = team.desc().replica_offset + i;
    const strata_device_t device = team.devices()[static_cast<size_t>(i)];
    for (const Buffer* b : {&in, &out}) {
      const char* side = b == &in ? "input" : "output";
      if (!(b->device == device)) {
        return InvalidArgumentError(replica(i) + "'s " + side + " is on " +
                                    team.runtime().device_name(b->device) + " but the replica runs on " +
                                    team.runtime().device_name(device));
      }
      if (b->dtype != shape.dtype) {
        return InvalidArgumentError(replica(i) + "'s " + side + " is " +
                                    std::string(dtype_name(b->dtype)) + " but replica 0's input is " +
                                    std::string(dtype_name(shape.dtype)));
      }
      const uint64_t want = b == &in ? in_count : out_count;
      if (b->count != want) {
        return InvalidArgumentError(name() + ": " + replica(i) + "'s " + side + " has " +
                                    std::to_string(b->count) + " elements, expected " +
                                    std::to_string(want));
      }
      if (b->count > 0 && b->data == nullptr) {
        return InvalidArgumentError(replica(i) + "'s " + side + " is NULL");
      }
    }
    if (in_place_for(kind, in, out, global, shape.count)) {
      ++in_place;
      if (first_in_place < 0) first_in_place = i;
      continue;
    }
    if (first_not_in_place < 0) first_not_in_place = i;
    if (kind != CollectiveKind::kBarrier && overlaps(in, out)) {
      return InvalidArgumentError(replica(i) + "'s input and output overlap without being the "
                                  "in-place layout of " + name());
    }
  }
  if (in_place != 0 && in_place != n && shape.count > 0) {
    return InvalidArgumentError(name() + " must be in place for every local replica or for none; " +
                                replica(first_in_place) + " is in place, " +
                                replica(first_not_in_place) + " is not");
  }
  shape.in_place = shape.count > 0 && in_place == n;
  return shape;
}

}  // namespace strata
