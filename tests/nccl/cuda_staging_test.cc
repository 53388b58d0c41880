// DeviceStaging on real GPU memory: a strategy's host tensors go into
// cudaMalloc'd scratch on the GPU, the collective sees device pointers, and
// the results come back to the host. CI machines, which have no GPU, check
// the same path on "walled" test devices
// (tests/distributed_training/device_staging_test.cc).
#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plugin/abi_status.h"
#include "core/runtime/runtime.h"
#include "core/strategy/device_staging.h"
#include "plugin_runtime.h"

namespace strata {
namespace {

TEST(CudaStaging, HostTensorsRoundTripThroughDeviceMemory) {
  std::string why;
  if (nccl_test::visible_gpus(&why) == 0) GTEST_SKIP() << why;
  const std::shared_ptr<Runtime> runtime = nccl_test::load_nccl_plugin();
  ASSERT_NE(runtime, nullptr);
  auto devices = runtime->devices("cuda", 1);
  ASSERT_TRUE(devices.ok()) << devices.status();
  const strata_device_t gpu = devices->front();
  auto needed = DeviceStaging::needed(*runtime, *devices);
  ASSERT_TRUE(needed.ok()) << needed.status();
  EXPECT_TRUE(*needed) << "cuda memory must not count as host-accessible";

  // Odd counts, so the second buffer starts at an aligned offset of its own.
  std::vector<float> in(1001), out(777, -1.0f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
  const DeviceStaging::Lists host = {
      {Buffer{in.data(), DType::kF32, 777, gpu}, Buffer{out.data(), DType::kF32, 777, gpu}}};
  const strata_device_type_t& table = runtime->registry().find_device_type("cuda")->table;

  DeviceStaging staging(*runtime, std::chrono::seconds(30));
  Status s = staging.run(host, [&](const DeviceStaging::Lists& staged) -> Status {
    for (const Buffer& b : staged[0]) {
      cudaPointerAttributes attributes{};
      if (cudaPointerGetAttributes(&attributes, b.data) != cudaSuccess ||
          attributes.type != cudaMemoryTypeDevice) {
        (void)cudaGetLastError();
        return InternalError("a staged buffer is not device memory");
      }
    }
    // out = in + in, by the cuda device type's own reduce kernel.
    const void* srcs[2] = {staged[0][0].data, staged[0][0].data};
    void* dsts[1] = {staged[0][1].data};
    AbiMessage m;
    return from_abi(table.reduce_async(table.user_data, gpu.index, STRATA_F32, STRATA_SUM, dsts, 1,
                                       srcs, 2, 777, 1, m.view()),
                    m, "reduce_async");
  });
  ASSERT_TRUE(s.ok()) << s;
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], 2 * in[i]) << "element " << i;
  EXPECT_EQ(in[5], 2.5f);  // the input came back unchanged
}

}  // namespace
}  // namespace strata
