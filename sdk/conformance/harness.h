// Where a test's calls run. A Harness owns one team (one CollectiveOps, used
// for every call of the test) and the replicas' device buffers, and moves
// host images of those buffers in and out around each call.
//
// Two kinds: every replica a local device of this process (algorithms with
// STRATA_SCOPE_LOCAL), or, under a launcher (--processes), this process's
// share of a team spanning every process of the run, whose replicas() is
// that share. The test body, the generator and the checks work on "the
// replicas this process holds" and compute the reference from seeds alone,
// so they are the same for both; process_world.h makes the processes agree
// on every verdict.
#ifndef STRATA_SDK_CONFORMANCE_HARNESS_H_
#define STRATA_SDK_CONFORMANCE_HARNESS_H_

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/common/status.h"
#include "core/runtime/runtime.h"
#include "sdk/conformance/case_spec.h"

namespace strata::conformance {

// Every buffer a call sees sits between two guard zones of this many bytes
// (a multiple of 64, so the buffer keeps its allocation's alignment) filled
// with kGuardByte: a write past either end shows up as a changed guard.
inline constexpr uint64_t kGuardBytes = 64;
inline constexpr std::byte kGuardByte{0xA5};

// Host copy of one allocation: guard | buffer | guard, moved to and from the
// device in one piece. Empty (no guards either) when the buffer is.
struct HostBuffer {
  std::vector<std::byte> bytes;

  void resize(uint64_t buffer_bytes) {
    bytes.resize(buffer_bytes == 0 ? 0 : buffer_bytes + 2 * kGuardBytes);
  }
  uint64_t size() const { return bytes.empty() ? 0 : bytes.size() - 2 * kGuardBytes; }
  std::byte* data() { return bytes.empty() ? nullptr : bytes.data() + kGuardBytes; }
  const std::byte* data() const { return bytes.empty() ? nullptr : bytes.data() + kGuardBytes; }
};

// Host copy of one replica's buffers. Out of place, `input` and `output`
// are the two allocations; in place, `input` is the one shared allocation
// (Layout::shared elements) and `output` stays empty.
struct ReplicaImage {
  HostBuffer input;
  HostBuffer output;
};

struct CallResult {
  Status setup;  // the harness failed (allocation, copies): not the plugin's fault
  Status call;   // what the collective returned
  bool called = false;  // false: setup failed before the call was made
};

class Harness {
 public:
  virtual ~Harness() = default;

  // Global ranks of the replicas whose buffers this process holds, in the
  // order of the images passed to run().
  virtual const std::vector<int>& replicas() const = 0;

  // The team's collectives, for checks that ask the algorithm about this
  // team without calling it (estimate).
  virtual CollectiveOps& ops() = 0;

  // Uploads `images` (guards included), runs one call of `spec` (root is a
  // global rank, used by broadcast and reduce) on the buffers between the
  // guards, then downloads everything into `images`.
  virtual CallResult run(const CaseSpec& spec, int root, std::vector<ReplicaImage>& images) = 0;

  // After a failed call: wait up to `grace` for work still queued on the
  // team's devices. False when it did not drain: the devices may be stuck,
  // and the buffers are leaked rather than freed under a running kernel.
  virtual bool drain(std::chrono::nanoseconds grace) = 0;
};

// Device memory kept between tests. Thousands of tests allocate the same
// few sizes; fresh memory costs a page fault per page on first touch, which
// was a large part of the suite's run time. Blocks are reused only by size
// and device, never while a call may still use them.
class DevicePool {
 public:
  explicit DevicePool(const strata_device_type_t& table) : table_(table) {}
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  StatusOr<void*> take(int device, uint64_t bytes);
  void give(int device, void* ptr, uint64_t bytes);
  const strata_device_type_t& table() const { return table_; }

 private:
  static constexpr uint64_t kMaxCachedBytes = uint64_t{256} << 20;
  strata_device_type_t table_;
  std::multimap<std::pair<int, uint64_t>, void*> free_;
  uint64_t cached_ = 0;
};

// A team of the first `world` devices of `device_type`; each call forces
// `spec.algorithm` and has deadline `timeout`. `pool` is of the same type
// and outlives the harness.
StatusOr<std::unique_ptr<Harness>> make_local_harness(std::shared_ptr<Runtime> runtime,
                                                      const std::string& device_type,
                                                      int world,
                                                      std::chrono::nanoseconds timeout,
                                                      DevicePool& pool);

// This process's share of `ops`' team (a multi-process team shared by
// every test, see ProcessWorld); the team is not owned alone.
std::unique_ptr<Harness> make_shared_team_harness(std::shared_ptr<CollectiveOps> ops,
                                                  std::chrono::nanoseconds timeout,
                                                  DevicePool& pool);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_HARNESS_H_
