// The virtual CPU devices stand in for GPUs in every multi-device test, so
// they must behave like CUDA streams: in-order per device, ordered across
// devices only by events. Ordering tests hold an event's mutex to freeze a
// stream deterministically (white box: CpuEvent is strata_event_t here), so
// "B ran before A finished" is a certainty, not a race that usually loses.
#include "core/device/cpu_device_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <numeric>
#include <vector>

#include "strata/sdk/device_table.h"
#include "strata/sdk/error.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr uint64_t kMemory = 1 << 20;
constexpr int kCount = 4;
constexpr uint64_t kN = 4096;  // floats per test buffer

CpuDeviceOptions small_devices() {
  CpuDeviceOptions o;
  o.count = kCount;
  o.memory_per_device = kMemory;
  o.bandwidth = 10e9;  // skips the bandwidth measurement
  return o;
}

class CpuDeviceTest : public ::testing::Test {
 protected:
  CpuDeviceTest() : type_(small_devices()), raw_(type_.table()), dev_(&raw_) {}

  // Runs `fn`, which must throw sdk::Error; returns it for inspection.
  template <class Fn>
  sdk::Error error_of(Fn&& fn) {
    try {
      fn();
    } catch (const sdk::Error& e) {
      return e;
    }
    ADD_FAILURE() << "expected an sdk::Error";
    return sdk::Error(STRATA_OK, "");
  }

  std::vector<float> read(int device, const void* src, uint64_t n = kN) {
    std::vector<float> out(n);
    dev_.copy_async(device, out.data(), STRATA_HOST_INDEX, src, device, n * sizeof(float));
    dev_.synchronize(device, 5s);
    return out;
  }

  CpuDeviceType type_;
  strata_device_type_t raw_;
  sdk::DeviceTable dev_;
};

// Holds an event's mutex: a stream that records or waits on the event
// blocks until release(), freezing everything queued behind it.
class Gate {
 public:
  Gate(CpuDeviceType& type, int device)
      : type_(type), device_(device),
        event_(static_cast<CpuEvent*>(type.event_create(device))), lock_(event_->mu) {
    type_.event_record(event_);  // the device's stream now blocks in mark()
  }
  ~Gate() {
    release();
    // Destroy the event only once no stream can still touch it.
    type_.synchronize(device_, std::chrono::seconds(5));
    for (int d : held_) type_.synchronize(d, std::chrono::seconds(5));
    type_.event_destroy(event_);
  }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  void hold(int device) {
    type_.stream_wait_event(device, event_);
    held_.push_back(device);
  }
  void release() {
    if (lock_.owns_lock()) lock_.unlock();
  }

 private:
  CpuDeviceType& type_;
  const int device_;
  CpuEvent* event_;
  std::unique_lock<std::mutex> lock_;
  std::vector<int> held_;
};

TEST_F(CpuDeviceTest, DescribesDevices) {
  EXPECT_EQ(dev_.count(), kCount);
  EXPECT_STREQ(dev_.name(), "cpu");
  const strata_device_props_t props = dev_.props(2);
  EXPECT_STREQ(props.name, "virtual CPU device 2");
  EXPECT_EQ(props.memory_bytes, kMemory);
  EXPECT_EQ(props.host_accessible, 1u);
  EXPECT_TRUE(dev_.can_access_peer(0, 3));
  EXPECT_FALSE(dev_.can_access_peer(0, kCount));
}

TEST_F(CpuDeviceTest, AccountsAllocationsInWholeCacheLines) {
  void* a = dev_.allocate(1, 100);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(type_.bytes_in_use(1), 128u);
  EXPECT_EQ(type_.bytes_in_use(0), 0u);
  void* b = dev_.allocate(1, 64);
  EXPECT_EQ(type_.bytes_in_use(1), 192u);
  EXPECT_EQ(dev_.allocate(1, 0), nullptr);  // zero bytes: NULL, nothing counted
  dev_.free(1, a);
  EXPECT_EQ(type_.bytes_in_use(1), 64u);
  dev_.free(1, b);
  EXPECT_EQ(type_.bytes_in_use(1), 0u);
}

TEST_F(CpuDeviceTest, OutOfMemoryNamesDeviceRequestAndUsage) {
  void* held = dev_.allocate(0, kMemory / 2);
  const sdk::Error e = error_of([&] { dev_.allocate(0, kMemory); });
  EXPECT_EQ(e.code(), STRATA_OUT_OF_MEMORY);
  EXPECT_STREQ(e.what(),
               "cpu:0 allocate: cpu:0 cannot allocate 1 MiB: 512 KiB of 1 MiB in use");
  EXPECT_EQ(type_.bytes_in_use(0), kMemory / 2) << "a refused allocation must not count";
  void* other = dev_.allocate(1, kMemory);  // the limit is per device
  dev_.free(1, other);
  dev_.free(0, held);
}

TEST_F(CpuDeviceTest, FreeOfAForeignPointerIsIgnored) {
  void* p = dev_.allocate(0, 256);
  int on_stack = 0;
  dev_.free(1, p);         // wrong device: logged, leaked rather than corrupted
  dev_.free(0, &on_stack);  // never allocated
  dev_.free(kCount + 3, p);  // no such device
  EXPECT_EQ(type_.bytes_in_use(0), 256u);
  EXPECT_EQ(type_.bytes_in_use(1), 0u);
  dev_.free(0, p);
  EXPECT_EQ(type_.bytes_in_use(0), 0u);
}

TEST_F(CpuDeviceTest, CopiesHostToDeviceToDeviceToHost) {
  std::vector<float> host(kN);
  std::iota(host.begin(), host.end(), 1.0f);
  sdk::DeviceBuffer a(dev_, 0, kN * sizeof(float));
  sdk::DeviceBuffer b(dev_, 3, kN * sizeof(float));
  dev_.copy_async(0, a.data(), 0, host.data(), STRATA_HOST_INDEX, a.bytes());
  dev_.copy_async(0, b.data(), 3, a.data(), 0, a.bytes());  // in order on stream 0
  dev_.synchronize(0, 5s);
  EXPECT_EQ(read(3, b.data()), host);
}

TEST_F(CpuDeviceTest, ReducesPeerSourcesInPlace) {
  std::vector<sdk::DeviceBuffer> bufs;
  for (int d = 0; d < 3; ++d) {
    bufs.emplace_back(dev_, d, kN * sizeof(float));
    std::vector<float> host(kN, static_cast<float>(d + 1));
    dev_.copy_async(d, bufs.back().data(), d, host.data(), STRATA_HOST_INDEX, host.size() * 4);
    dev_.synchronize(d, 5s);
  }
  // One result written to two peers' buffers, both of them also sources.
  const void* srcs[] = {bufs[1].data(), bufs[0].data(), bufs[2].data()};
  void* const dsts[] = {bufs[1].data(), bufs[2].data()};
  dev_.reduce_async(1, STRATA_F32, STRATA_MEAN, dsts, srcs, kN, 3);
  EXPECT_EQ(read(1, bufs[1].data()), std::vector<float>(kN, 2.0f));
  EXPECT_EQ(read(2, bufs[2].data()), std::vector<float>(kN, 2.0f));
  EXPECT_EQ(read(0, bufs[0].data()), std::vector<float>(kN, 1.0f));
}

TEST_F(CpuDeviceTest, RefusesBadIndicesAndReduceArguments) {
  float x = 0;
  const void* srcs[] = {&x};
  void* const dst[] = {&x};
  const std::pair<sdk::Error, const char*> cases[] = {
      {error_of([&] { dev_.allocate(kCount, 64); }),
       "cpu:4 allocate: allocate: no cpu device 4 (this process has 4)"},
      {error_of([&] { dev_.allocate(-1, 64); }),
       "cpu:-1 allocate: allocate: no cpu device -1 (this process has 4)"},
      {error_of([&] { dev_.copy_async(STRATA_HOST_INDEX, &x, 0, &x, 0, 4); }),
       "cpu:-1 copy_async: copy_async stream: no cpu device -1 (this process has 4)"},
      {error_of([&] { dev_.copy_async(0, &x, 9, &x, 0, 4); }),
       "cpu:0 copy_async: copy_async destination: no cpu device 9 (this process has 4)"},
      {error_of([&] { dev_.copy_async(0, nullptr, 0, &x, 0, 4); }),
       "cpu:0 copy_async: copy_async of 4 bytes with a NULL pointer"},
      {error_of([&] { dev_.reduce_async(7, STRATA_F32, STRATA_SUM, dst, srcs, 1, 1); }),
       "cpu:7 reduce_async: reduce_async: no cpu device 7 (this process has 4)"},
      {error_of([&] { dev_.reduce_async(0, 42, STRATA_SUM, dst, srcs, 1, 1); }),
       "cpu:0 reduce_async: reduce_async: unknown dtype 42"},
      {error_of([&] { dev_.reduce_async(0, STRATA_F32, 9, dst, srcs, 1, 1); }),
       "cpu:0 reduce_async: reduce_async: unknown operator 9"},
      {error_of([&] { dev_.reduce_async(0, STRATA_F32, STRATA_MEAN, dst, srcs, 1, 0); }),
       "cpu:0 reduce_async: reduce_async: MEAN with divisor 0"},
      {error_of([&] { dev_.reduce_async(0, STRATA_F32, STRATA_SUM, dst, {}, 1, 1); }),
       "cpu:0 reduce_async: reduce_async: no sources"},
      {error_of([&] { dev_.reduce_async(0, STRATA_F32, STRATA_SUM, {}, srcs, 1, 1); }),
       "cpu:0 reduce_async: reduce_async: no destinations"},
      {error_of([&] { dev_.synchronize(kCount, 1s); }),
       "cpu:4 synchronize: synchronize: no cpu device 4 (this process has 4)"},
      {error_of([&] { sdk::DeviceEvent e(dev_, 5); }),
       "cpu:5 event_create: event_create: no cpu device 5 (this process has 4)"},
      {error_of([&] { dev_.props(4); }), "cpu:4 get_props: no device 4"},
  };
  for (const auto& [e, text] : cases) {
    EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT) << text;
    EXPECT_STREQ(e.what(), text);
  }
}

TEST_F(CpuDeviceTest, NewEventIsReachedAndRecordedEventIsReachedAfterWork) {
  sdk::DeviceEvent ev(dev_, 2);
  EXPECT_TRUE(ev.reached());
  EXPECT_TRUE(ev.wait(0ns));
  ev.record();
  EXPECT_TRUE(ev.wait(5s));
  EXPECT_TRUE(ev.reached());
}

TEST_F(CpuDeviceTest, StreamWaitEventOrdersWorkAcrossDevices) {
  sdk::DeviceBuffer a_in(dev_, 0, kN * 4), a_out(dev_, 0, kN * 4), b_out(dev_, 1, kN * 4),
      c_out(dev_, 2, kN * 4);
  const std::vector<float> ones(kN, 1.0f);
  dev_.copy_async(0, a_in.data(), 0, ones.data(), STRATA_HOST_INDEX, kN * 4);
  dev_.copy_async(0, a_out.data(), 0, ones.data(), STRATA_HOST_INDEX, kN * 4);
  dev_.synchronize(0, 5s);

  Gate gate(type_, 3);
  gate.hold(0);  // device 0 now waits for the gate
  const void* srcs[] = {a_out.data(), a_in.data(), a_in.data()};
  void* const dsts[] = {a_out.data()};
  dev_.reduce_async(0, STRATA_F32, STRATA_SUM, dsts, srcs, kN, 1);  // a_out = 3
  sdk::DeviceEvent done(dev_, 0);
  done.record();
  done.make_stream_wait(1);
  dev_.copy_async(1, b_out.data(), 1, a_out.data(), 0, kN * 4);  // waits for the reduce
  dev_.copy_async(2, c_out.data(), 2, a_out.data(), 0, kN * 4);  // does not wait

  // Device 2's copy ran before the reduce: what device 1 would have seen
  // without stream_wait_event. Device 1 is still blocked behind the event.
  EXPECT_EQ(read(2, c_out.data()), ones);
  EXPECT_FALSE(done.reached());
  EXPECT_FALSE(done.wait(10ms));

  gate.release();
  EXPECT_TRUE(done.wait(5s));
  EXPECT_EQ(read(1, b_out.data()), std::vector<float>(kN, 3.0f));
}

TEST_F(CpuDeviceTest, ReRecordingReplacesThePreviousRecord) {
  sdk::DeviceBuffer buf(dev_, 0, kN * 4), copy(dev_, 1, kN * 4);
  const std::vector<float> twos(kN, 2.0f);
  sdk::DeviceEvent ev(dev_, 0);
  ev.record();
  ASSERT_TRUE(ev.wait(5s));  // the first record is reached

  Gate gate(type_, 3);
  gate.hold(0);
  dev_.copy_async(0, buf.data(), 0, twos.data(), STRATA_HOST_INDEX, kN * 4);
  ev.record();
  // The earlier, reached record no longer counts: waiters see the new one.
  EXPECT_FALSE(ev.reached());
  ev.make_stream_wait(1);
  dev_.copy_async(1, copy.data(), 1, buf.data(), 0, kN * 4);
  gate.release();
  EXPECT_TRUE(ev.wait(5s));
  EXPECT_EQ(read(1, copy.data()), twos);
}

TEST_F(CpuDeviceTest, SynchronizeDrainsEveryQueuedTask) {
  sdk::DeviceBuffer buf(dev_, 2, kN * 4);
  std::vector<float> host(kN, 0.0f);
  const std::vector<float> one(kN, 1.0f);
  dev_.copy_async(2, buf.data(), 2, host.data(), STRATA_HOST_INDEX, kN * 4);
  const void* plus[] = {buf.data(), one.data()};
  void* const dsts[] = {buf.data()};
  for (int i = 0; i < 50; ++i) {  // buf += 1, fifty times, strictly in order
    dev_.reduce_async(2, STRATA_F32, STRATA_SUM, dsts, plus, kN, 1);
  }
  dev_.copy_async(2, host.data(), STRATA_HOST_INDEX, buf.data(), 2, kN * 4);
  dev_.synchronize(2, 5s);  // returns only after the last copy ran
  EXPECT_EQ(host, std::vector<float>(kN, 50.0f));
}

}  // namespace
}  // namespace strata
