// The cuda device type's contract (strata/abi/device.h) on real GPUs:
// memory, copies in every direction, events across streams, synchronize,
// and the errors for what the kernel must never see. Skips without a GPU.
#include <cstring>
#include <functional>
#include <vector>

#include "gpu_test_env.h"
#include "reduce_kernel.h"
#include "strata/sdk/error.h"

namespace strata::nccl::test {
namespace {

strata_status_t code_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const sdk::Error& e) {
    return e.code();
  }
  return STRATA_OK;
}

std::vector<unsigned char> pattern(size_t bytes, unsigned seed) {
  std::vector<unsigned char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>(i * 31 + seed);
  return v;
}

TEST(CudaDeviceType, DescribesEveryVisibleGpu) {
  STRATA_REQUIRE_GPUS(1);
  auto type = make_cuda_type();
  for (int d = 0; d < type->device_count(); ++d) {
    strata_device_props_t props{};
    props.struct_size = sizeof props;
    type->describe(d, props);
    EXPECT_GT(props.memory_bytes, 0u);
    EXPECT_EQ(props.host_accessible, 0u);
    EXPECT_GT(std::strlen(props.name), 0u);
    EXPECT_TRUE(type->can_access_peer(d, d));
    EXPECT_GT(type->link_bandwidth(d, d), type->link_bandwidth(STRATA_HOST_INDEX, d));
  }
  EXPECT_EQ(type->allocate(0, 0), nullptr);
  EXPECT_EQ(code_of([&] { type->allocate(type->device_count(), 64); }), STRATA_INVALID_ARGUMENT);
}

TEST(CudaDeviceType, CopiesRoundTripThroughEveryDirection) {
  STRATA_REQUIRE_GPUS(1);
  auto type = make_cuda_type();
  const size_t bytes = (size_t{1} << 20) + 13;
  const auto src = pattern(bytes, 7);
  void* a = type->allocate(0, bytes);
  void* b = type->allocate(0, bytes);
  type->copy_async(0, a, 0, src.data(), STRATA_HOST_INDEX, bytes);
  type->copy_async(0, b, 0, a, 0, bytes);
  std::vector<unsigned char> back(bytes, 0);
  type->copy_async(0, back.data(), STRATA_HOST_INDEX, b, 0, bytes);
  type->synchronize(0, kTimeout);
  EXPECT_EQ(back, src);
  type->free(0, a);
  type->free(0, b);
}

TEST(CudaDeviceType, PeerCopiesWorkWithOrWithoutPeerAccess) {
  STRATA_REQUIRE_GPUS(2);
  auto type = make_cuda_type();
  const size_t bytes = 3 << 20;
  const auto src = pattern(bytes, 3);
  void* on0 = type->allocate(0, bytes);
  void* on1 = type->allocate(1, bytes);
  type->copy_async(0, on0, 0, src.data(), STRATA_HOST_INDEX, bytes);
  // On cuda:0's stream, then back on cuda:1's after waiting for cuda:0.
  type->copy_async(0, on1, 1, on0, 0, bytes);
  strata_event_t copied = type->event_create(0);
  type->event_record(copied);
  type->stream_wait_event(1, copied);
  std::vector<unsigned char> back(bytes, 0);
  type->copy_async(1, back.data(), STRATA_HOST_INDEX, on1, 1, bytes);
  type->synchronize(1, kTimeout);
  EXPECT_TRUE(type->event_query(copied));
  EXPECT_EQ(back, src);
  type->event_destroy(copied);
  if (type->can_access_peer(0, 1)) {
    // A reduction on cuda:0 reading cuda:1's memory.
    void* const dsts[1] = {on0};
    const void* const srcs[2] = {on0, on1};
    EXPECT_NO_THROW(type->reduce_async(0, STRATA_U8, STRATA_MAX, dsts, srcs, bytes, 1));
    type->synchronize(0, kTimeout);
  }
  type->free(0, on0);
  type->free(1, on1);
}

TEST(CudaDeviceType, EventsStartReachedAndFollowTheStream) {
  STRATA_REQUIRE_GPUS(1);
  auto type = make_cuda_type();
  strata_event_t e = type->event_create(0);
  EXPECT_TRUE(type->event_query(e));  // a new event counts as reached
  const size_t bytes = 64 << 20;
  void* a = type->allocate(0, bytes);
  void* b = type->allocate(0, bytes);
  for (int i = 0; i < 8; ++i) type->copy_async(0, b, 0, a, 0, bytes);
  type->event_record(e);
  EXPECT_TRUE(type->event_wait(e, kTimeout));
  EXPECT_TRUE(type->event_query(e));
  type->event_destroy(e);
  type->free(0, a);
  type->free(0, b);
}

TEST(CudaDeviceType, RefusesWhatWouldFaultTheKernel) {
  STRATA_REQUIRE_GPUS(1);
  auto type = make_cuda_type();
  std::vector<float> host(16, 1.0f);
  void* dev = type->allocate(0, host.size() * sizeof(float));
  void* const host_dst[1] = {host.data()};
  const void* const dev_src[1] = {dev};
  // Host memory in a kernel would kill the context; it is refused instead.
  EXPECT_EQ(code_of([&] { type->reduce_async(0, STRATA_F32, STRATA_SUM, host_dst, dev_src, 16, 1); }),
            STRATA_INVALID_ARGUMENT);
  std::vector<const void*> many(kMaxReduceOperands + 1, dev);
  void* const dev_dst[1] = {dev};
  EXPECT_EQ(code_of([&] { type->reduce_async(0, STRATA_F32, STRATA_SUM, dev_dst, many, 16, 1); }),
            STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { type->reduce_async(0, STRATA_DTYPE_COUNT, STRATA_SUM, dev_dst, dev_src, 16, 1); }),
            STRATA_NOT_SUPPORTED);
  EXPECT_EQ(code_of([&] { type->reduce_async(0, STRATA_F32, STRATA_MEAN, dev_dst, dev_src, 16, 0); }),
            STRATA_INVALID_ARGUMENT);
  // The device still works afterwards.
  type->copy_async(0, dev, 0, host.data(), STRATA_HOST_INDEX, host.size() * sizeof(float));
  type->reduce_async(0, STRATA_F32, STRATA_SUM, dev_dst, dev_src, 16, 1);
  EXPECT_NO_THROW(type->synchronize(0, kTimeout));
  type->free(0, dev);
}

}  // namespace
}  // namespace strata::nccl::test
