#include "core/collective/packing.h"

#include <algorithm>

#include "core/collective/collective_ops.h"
#include "core/plugin/abi_status.h"
#include "core/runtime/runtime.h"

namespace strata {

std::vector<PackPlan> plan_packs(std::span<const Buffer> tensors, uint64_t bytes_per_pack) {
  std::vector<PackPlan> packs;
  std::map<DType, size_t> open;  // the pack currently filling, per dtype
  std::map<DType, uint64_t> open_bytes;
  for (size_t k = tensors.size(); k-- > 0;) {
    const Buffer& t = tensors[k];
    auto it = open.find(t.dtype);
    if (bytes_per_pack == 0 || it == open.end() || open_bytes[t.dtype] > bytes_per_pack) {
      packs.push_back(PackPlan{t.dtype, {}, 0});
      it = open.insert_or_assign(t.dtype, packs.size() - 1).first;
      open_bytes[t.dtype] = 0;
    }
    PackPlan& pack = packs[it->second];
    pack.tensors.push_back(k);
    pack.count += t.count;
    open_bytes[t.dtype] += t.bytes();
  }
  return packs;
}

PackScratch::~PackScratch() {
  for (auto& [key, b] : blocks_) {
    if (b.data != nullptr) b.type->free(b.type->user_data, b.index, b.data);
  }
}

StatusOr<void*> PackScratch::get(const strata_device_type_t& type, strata_device_t device,
                                 uint64_t bytes) {
  Block& b = blocks_[{device.type, device.index}];
  if (b.bytes >= bytes) return b.data;
  if (b.data != nullptr) type.free(type.user_data, device.index, b.data);
  b = Block{&type, device.index, nullptr, 0};
  AbiMessage m;
  STRATA_RETURN_IF_ERROR(from_abi(type.allocate(type.user_data, device.index, bytes, &b.data,
                                                m.view()),
                                  m, "allocating a " + std::to_string(bytes) + "-byte pack"));
  b.bytes = bytes;
  return b.data;
}

namespace {

// Copies between tensors and packs on every replica's stream, then waits.
class PackCopier {
 public:
  PackCopier(const strata_device_type_t& type, std::chrono::nanoseconds timeout)
      : type_(type), timeout_(timeout) {}

  Status copy(strata_device_t device, void* dst, const void* src, uint64_t bytes) {
    if (bytes == 0) return Status::Ok();
    AbiMessage m;
    return from_abi(type_.copy_async(type_.user_data, device.index, dst, device.index, src,
                                     device.index, bytes, m.view()),
                    m, "pack copy");
  }
  Status finish(std::span<const strata_device_t> devices) {
    for (const auto& d : devices) {
      AbiMessage m;
      STRATA_RETURN_IF_ERROR(from_abi(type_.synchronize(type_.user_data, d.index,
                                                        timeout_.count(), m.view()),
                                      m, "pack synchronize"));
    }
    return Status::Ok();
  }

 private:
  const strata_device_type_t& type_;
  std::chrono::nanoseconds timeout_;
};

}  // namespace

Status CollectiveOps::batch_all_reduce(std::span<const std::vector<Buffer>> per_replica,
                                       ReduceOp op, const CallOptions& options) {
  std::lock_guard lock(mu_);
  const int n = team_->local_count();
  if (static_cast<int>(per_replica.size()) != n) {
    return InvalidArgumentError("batch_all_reduce needs one tensor list per local replica (" +
                                std::to_string(n) + "); got " + std::to_string(per_replica.size()));
  }
  const size_t tensors = per_replica[0].size();
  for (int r = 0; r < n; ++r) {
    const auto& list = per_replica[static_cast<size_t>(r)];
    if (list.size() != tensors) {
      return InvalidArgumentError("replica " + std::to_string(r) + " passed " +
                                  std::to_string(list.size()) + " tensors, replica 0 passed " +
                                  std::to_string(tensors));
    }
    for (size_t t = 0; t < tensors; ++t) {
      if (!(list[t].device == team_->devices()[static_cast<size_t>(r)])) {
        return InvalidArgumentError("tensor " + std::to_string(t) + " of replica " +
                                    std::to_string(r) + " is on " +
                                    team_->runtime().device_name(list[t].device) +
                                    ", not on the replica's device");
      }
      if (list[t].count != per_replica[0][t].count || list[t].dtype != per_replica[0][t].dtype) {
        return InvalidArgumentError("tensor " + std::to_string(t) + " of replica " +
                                    std::to_string(r) + " differs in size or dtype from replica 0's");
      }
    }
  }
  const auto packs = plan_packs(per_replica[0], config_.bytes_per_pack);
  const DeviceTypeEntry* type = team_->runtime().registry().device_type(team_->device_type());
  const auto timeout = options.timeout.value_or(config_.timeout);
  PackCopier copier(type->table, timeout);

  for (size_t p = 0; p < packs.size(); ++p) {
    const PackPlan& pack = packs[p];
    std::vector<Buffer> bufs(static_cast<size_t>(n));
    const std::string where = "batch_all_reduce pack " + std::to_string(p + 1) + "/" +
                              std::to_string(packs.size());
    if (pack.tensors.size() == 1) {  // nothing to fuse: reduce in place
      for (int r = 0; r < n; ++r) {
        bufs[static_cast<size_t>(r)] = per_replica[static_cast<size_t>(r)][pack.tensors[0]];
      }
      Status s = run_locked(CollectiveKind::kAllReduce, bufs, bufs, op, 0, options);
      if (!s.ok()) return s.prefixed(where);
      continue;
    }
    const uint64_t bytes = pack.count * dtype_size(pack.dtype);
    for (int r = 0; r < n; ++r) {
      const strata_device_t dev = team_->devices()[static_cast<size_t>(r)];
      auto scratch = scratch_.get(type->table, dev, bytes);
      if (!scratch.ok()) return scratch.status().prefixed(where);
      bufs[static_cast<size_t>(r)] = Buffer{*scratch, pack.dtype, pack.count, dev};
      auto* cursor = static_cast<char*>(*scratch);
      for (size_t t : pack.tensors) {
        const Buffer& src = per_replica[static_cast<size_t>(r)][t];
        STRATA_RETURN_IF_ERROR(copier.copy(dev, cursor, src.data, src.bytes()));
        cursor += src.bytes();
      }
    }
    STRATA_RETURN_IF_ERROR(copier.finish(team_->devices()));
    Status s = run_locked(CollectiveKind::kAllReduce, bufs, bufs, op, 0, options);
    if (!s.ok()) return s.prefixed(where);
    for (int r = 0; r < n; ++r) {
      const auto* cursor = static_cast<const char*>(bufs[static_cast<size_t>(r)].data);
      for (size_t t : pack.tensors) {
        const Buffer& dst = per_replica[static_cast<size_t>(r)][t];
        STRATA_RETURN_IF_ERROR(copier.copy(dst.device, dst.data, cursor, dst.bytes()));
        cursor += dst.bytes();
      }
    }
    STRATA_RETURN_IF_ERROR(copier.finish(team_->devices()));
  }
  return Status::Ok();
}

}  // namespace strata
