// What every hierarchical_copy test needs: a Runtime with the in-tree plugin
// (and nothing from the environment), eight virtual CPU devices, and the
// no_peer test device type registered next to them, so every algorithm can
// run both with and without peer access.
#ifndef STRATA_TESTS_HIERARCHICAL_COPY_TEST_RUNTIME_H_
#define STRATA_TESTS_HIERARCHICAL_COPY_TEST_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "no_peer_device_type.h"
#include "strata/sdk/device_table.h"

namespace strata::testing {

enum class Devices { kCpu, kNoPeer };
std::string devices_name(Devices d);  // "cpu", "no_peer"
inline void PrintTo(Devices d, std::ostream* os) { *os << devices_name(d); }

class TestRuntime {
 public:
  static constexpr int kDevices = 8;

  // nullptr (after a test failure naming the reason) when set-up fails.
  static std::unique_ptr<TestRuntime> create();

  Runtime& runtime() { return *runtime_; }
  sdk::DeviceTable table(Devices d) const;
  // A team of the first `n` devices of that type.
  StatusOr<std::unique_ptr<CollectiveOps>> team(Devices d, int n) const;
  const NoPeerDeviceType& no_peer() const { return *no_peer_; }

 private:
  TestRuntime() = default;
  uint32_t type_id(Devices d) const { return d == Devices::kCpu ? cpu_type_ : no_peer_type_; }

  // Declared first: destroyed after the runtime, whose registry points at it.
  std::unique_ptr<NoPeerDeviceType> no_peer_;
  std::shared_ptr<Runtime> runtime_;
  uint32_t cpu_type_ = 0;
  uint32_t no_peer_type_ = 0;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_HIERARCHICAL_COPY_TEST_RUNTIME_H_
