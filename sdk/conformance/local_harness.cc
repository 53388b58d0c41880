// LocalHarness: the replicas of a team that are devices of this process —
// all of them, or this process's share of a multi-process team
// (--processes, where one team serves every test). Buffers live in device
// memory from the device type's own table and move through its copy_async,
// exactly as a user's tensors would, so the suite also runs on device types
// whose memory the host cannot touch.
#include <numeric>

#include "core/collective/collective_ops.h"
#include "core/plugin/abi_status.h"
#include "sdk/conformance/harness.h"

namespace strata::conformance {
namespace {

class LocalHarness final : public Harness {
 public:
  // `first_rank` is the global rank of devices[0].
  LocalHarness(std::shared_ptr<CollectiveOps> ops, DevicePool& pool,
               std::vector<strata_device_t> devices, std::chrono::nanoseconds timeout,
               int first_rank = 0)
      : ops_(std::move(ops)), pool_(pool), table_(pool.table()), devices_(std::move(devices)),
        timeout_(timeout), ranks_(devices_.size()), allocations_(devices_.size()) {
    std::iota(ranks_.begin(), ranks_.end(), first_rank);
  }

  ~LocalHarness() override {
    if (leak_) return;  // a stuck kernel may still write there; see drain()
    for (size_t r = 0; r < allocations_.size(); ++r) {
      for (const Allocation& a : allocations_[r]) pool_.give(devices_[r].index, a.base, a.total);
    }
  }

  const std::vector<int>& replicas() const override { return ranks_; }
  CollectiveOps& ops() override { return *ops_; }

  CallResult run(const CaseSpec& spec, int root, std::vector<ReplicaImage>& images) override {
    CallResult result;
    if (spec.op == CollectiveKind::kBarrier) {
      result.called = true;
      result.call = ops_->barrier(options(spec));
      return result;
    }
    std::vector<Buffer> inputs;
    std::vector<Buffer> outputs;
    const size_t elem = dtype_size(spec.dtype);
    for (size_t r = 0; r < devices_.size(); ++r) {
      ReplicaImage& image = images[r];
      const Layout l = layout_for(spec, ranks_[r]);  // the global rank picks the slot
      result.setup = allocate(r, image, spec.in_place ? 1 : 2);
      if (!result.setup.ok()) return result;
      for (size_t k = 0; k < allocations_[r].size(); ++k) {
        const Allocation& a = allocations_[r][k];
        result.setup = copy(r, a.base, devices_[r].index, host(image, k).bytes.data(),
                            STRATA_HOST_INDEX, a.total);
        if (!result.setup.ok()) return result;
      }
      std::byte* first = allocations_[r][0].data();
      std::byte* second = spec.in_place ? first : allocations_[r][1].data();
      const strata_device_t d = devices_[r];
      inputs.push_back({l.in_count == 0 ? nullptr : first + l.in_offset * elem, spec.dtype,
                        l.in_count, d});
      outputs.push_back({l.out_count == 0 ? nullptr : second + l.out_offset * elem,
                         spec.dtype, l.out_count, d});
    }
    result.setup = synchronize_all();
    if (!result.setup.ok()) return result;

    const CallOptions opts = options(spec);
    result.called = true;
    switch (spec.op) {
      case CollectiveKind::kAllReduce:
        result.call = ops_->all_reduce(inputs, outputs, *spec.redop, opts);
        break;
      case CollectiveKind::kBroadcast:
        result.call = ops_->broadcast(inputs, outputs, root, opts);
        break;
      case CollectiveKind::kAllGather: result.call = ops_->all_gather(inputs, outputs, opts); break;
      case CollectiveKind::kReduceScatter:
        result.call = ops_->reduce_scatter(inputs, outputs, *spec.redop, opts);
        break;
      case CollectiveKind::kReduce:
        result.call = ops_->reduce(inputs, outputs, *spec.redop, root, opts);
        break;
      case CollectiveKind::kBarrier: break;
    }
    if (!result.call.ok()) return result;

    for (size_t r = 0; r < devices_.size(); ++r) {
      for (size_t k = 0; k < allocations_[r].size(); ++k) {
        const Allocation& a = allocations_[r][k];
        result.setup = copy(r, host(images[r], k).bytes.data(), STRATA_HOST_INDEX, a.base,
                            devices_[r].index, a.total);
        if (!result.setup.ok()) return result;
      }
    }
    result.setup = synchronize_all();
    return result;
  }

  bool drain(std::chrono::nanoseconds grace) override {
    const Status s = synchronize_all(grace);
    leak_ = leak_ || !s.ok();
    return s.ok();
  }

 private:
  // The device side of a HostBuffer: guard | buffer | guard, or nothing.
  struct Allocation {
    void* base = nullptr;
    uint64_t total = 0;
    std::byte* data() const {
      return total == 0 ? nullptr : static_cast<std::byte*>(base) + kGuardBytes;
    }
  };

  CallOptions options(const CaseSpec& spec) const {
    CallOptions o;
    o.timeout = timeout_;
    o.algorithm = spec.algorithm;
    return o;
  }

  static HostBuffer& host(ReplicaImage& image, size_t k) {
    return k == 0 ? image.input : image.output;
  }

  // One allocation per image (in place: only `input`), kept for
  // every call of the test: the shapes do not change between calls.
  Status allocate(size_t r, ReplicaImage& image, size_t how_many) {
    if (!allocations_[r].empty()) return Status::Ok();
    for (size_t k = 0; k < how_many; ++k) {
      Allocation a;
      a.total = host(image, k).bytes.size();
      STRATA_ASSIGN_OR_RETURN(a.base, pool_.take(devices_[r].index, a.total));
      allocations_[r].push_back(a);
    }
    return Status::Ok();
  }

  Status copy(size_t r, void* dst, int dst_device, const void* src, int src_device,
              uint64_t bytes) {
    if (bytes == 0) return Status::Ok();
    AbiMessage m;
    return from_abi(table_.copy_async(table_.user_data, devices_[r].index, dst, dst_device, src,
                                      src_device, bytes, m.view()),
                    m, "copy_async");
  }

  Status synchronize_all(std::chrono::nanoseconds limit = std::chrono::nanoseconds::zero()) {
    const auto t = limit.count() > 0 ? limit : timeout_;
    for (const strata_device_t& d : devices_) {
      AbiMessage m;
      STRATA_RETURN_IF_ERROR(from_abi(
          table_.synchronize(table_.user_data, d.index, t.count(), m.view()), m, "synchronize"));
    }
    return Status::Ok();
  }

  std::shared_ptr<CollectiveOps> ops_;
  DevicePool& pool_;
  strata_device_type_t table_;
  std::vector<strata_device_t> devices_;
  std::chrono::nanoseconds timeout_;
  std::vector<int> ranks_;
  std::vector<std::vector<Allocation>> allocations_;  // [replica][input, output]
  bool leak_ = false;
};

}  // namespace

DevicePool::~DevicePool() {
  for (const auto& [key, ptr] : free_) table_.free(table_.user_data, key.first, ptr);
}

StatusOr<void*> DevicePool::take(int device, uint64_t bytes) {
  if (bytes == 0) return static_cast<void*>(nullptr);
  if (auto it = free_.find({device, bytes}); it != free_.end()) {
    void* ptr = it->second;
    free_.erase(it);
    cached_ -= bytes;
    return ptr;
  }
  void* ptr = nullptr;
  AbiMessage m;
  STRATA_RETURN_IF_ERROR(from_abi(table_.allocate(table_.user_data, device, bytes, &ptr, m.view()),
                                  m, "allocating " + std::to_string(bytes) +
                                         " bytes on device " + std::to_string(device)));
  return ptr;
}

void DevicePool::give(int device, void* ptr, uint64_t bytes) {
  if (ptr == nullptr) return;
  if (cached_ + bytes > kMaxCachedBytes) {
    table_.free(table_.user_data, device, ptr);
    return;
  }
  free_.emplace(std::make_pair(device, bytes), ptr);
  cached_ += bytes;
}

StatusOr<std::unique_ptr<Harness>> make_local_harness(std::shared_ptr<Runtime> runtime,
                                                      const std::string& device_type,
                                                      int world,
                                                      std::chrono::nanoseconds timeout,
                                                      DevicePool& pool) {
  STRATA_ASSIGN_OR_RETURN(std::vector<strata_device_t> devices,
                          runtime->devices(device_type, world));
  TeamSpec spec;
  spec.local_devices = devices;
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<CollectiveOps> ops,
                          CollectiveOps::create(std::move(runtime), std::move(spec)));
  return std::unique_ptr<Harness>(
      new LocalHarness(std::move(ops), pool, std::move(devices), timeout));
}

std::unique_ptr<Harness> make_shared_team_harness(std::shared_ptr<CollectiveOps> ops,
                                                  std::chrono::nanoseconds timeout,
                                                  DevicePool& pool) {
  std::vector<strata_device_t> devices = ops->team().devices();
  const int first_rank = ops->team().desc().replica_offset;
  return std::unique_ptr<Harness>(
      new LocalHarness(std::move(ops), pool, std::move(devices), timeout, first_rank));
}

}  // namespace strata::conformance
