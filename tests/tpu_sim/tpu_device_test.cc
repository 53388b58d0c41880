// The "tpu" device type and the interconnect model: enumeration and memory
// of the cores, estimates that follow the documented formula, links that
// take the modelled time when paced (measured ≈ modelled), and a core whose
// wait never ends failing with an error instead of hanging.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "core/plugin/registry.h"
#include "strata/sdk/error.h"
#include "tpu_test_runtime.h"

namespace strata::testing {
namespace {

using namespace std::chrono_literals;

TEST(TpuDevices, OneDevicePerCoreWithItsOwnMemory) {
  auto rt = tpu_runtime(2, 3, {{"memory_per_core", "1MiB"}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  const auto table = tpu_table(**rt);
  ASSERT_EQ(table.count(), 6);
  EXPECT_STREQ(table.props(4).name, "simulated TPU core 4 (row 1, col 1 of 2x3)");
  EXPECT_EQ(table.props(4).memory_bytes, uint64_t{1} << 20);
  EXPECT_FALSE(table.can_access_peer(0, 1));
  void* p = table.allocate(2, 768 << 10);
  try {
    table.allocate(2, 512 << 10);
    ADD_FAILURE() << "a second 512 KiB fitted in 1 MiB beside 768 KiB";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find("tpu:2"), std::string::npos) << e.what();
  }
  void* q = table.allocate(3, 512 << 10);  // another core's memory is its own
  table.free(2, p);
  table.free(3, q);
}

TEST(TpuDevices, CopiesBetweenHostAndCoresAndCoresRunInStreamOrder) {
  auto rt = tpu_runtime(1, 2);
  ASSERT_TRUE(rt.ok()) << rt.status();
  const auto table = tpu_table(**rt);
  std::vector<int> host(4096), back(4096, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>(i * 7);
  const uint64_t bytes = host.size() * sizeof(int);
  sdk::DeviceBuffer a(table, 0, bytes), b(table, 1, bytes);
  table.copy_async(0, a.data(), 0, host.data(), STRATA_HOST_INDEX, bytes);
  sdk::DeviceEvent ready(table, 0);
  ready.record();
  ready.make_stream_wait(1);  // core 1 pulls only after core 0 has the data
  table.copy_async(1, b.data(), 1, a.data(), 0, bytes);
  table.copy_async(1, back.data(), STRATA_HOST_INDEX, b.data(), 1, bytes);
  table.synchronize(1, 10s);
  EXPECT_EQ(back, host);
}

// Seconds the plugin's estimate gives an all-reduce of `bytes` f32 on `cores`.
double estimate(Runtime& rt, const std::string& id, strata_op_t op, std::vector<int> cores,
                uint64_t bytes) {
  const AlgorithmEntry* algo = rt.registry().find_algorithm(id);
  EXPECT_NE(algo, nullptr) << id;
  const uint32_t type = rt.registry().find_device_type("tpu")->id;
  std::vector<strata_device_t> devices;
  for (int c : cores) devices.push_back({type, c});
  strata_team_desc_t team{};
  team.struct_size = sizeof team;
  team.process_count = 1;
  team.local_count = static_cast<uint32_t>(devices.size());
  team.local_devices = devices.data();
  team.replica_count = static_cast<int32_t>(devices.size());
  strata_call_desc_t call{};
  call.struct_size = sizeof call;
  call.op = op;
  call.dtype = STRATA_F32;
  call.count = bytes / 4;
  call.device_type = type;
  call.team = &team;
  double seconds = -1;
  EXPECT_EQ(algo->table.estimate(algo->table.user_data, &call, &seconds), STRATA_OK);
  return seconds;
}

TEST(TpuCostModel, AllReduceIsTheTwoDimensionalRingFormula) {
  auto rt = tpu_runtime(2, 4, {{"alpha_us", "3"}, {"link_gbytes_per_s", "40"},
                               {"reduce_gbytes_per_s", "80"}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  const double alpha = 3e-6, beta = 1 / 40e9, gamma = 1 / 80e9;
  const double s = 8 << 20;  // divides evenly into 8 parts of whole cache lines
  const int n = 8, rows = 2, cols = 4;
  // 2(rows + cols - 2) steps of latency; 2(n-1)/n of the buffer over the
  // links; (n-1)/n of it reduced.
  const double expected = 2 * alpha * (rows + cols - 2) + 2 * s * beta * (n - 1) / n +
                          s * gamma * (n - 1) / n;
  const double got = estimate(**rt, "tpu_sim/all_reduce/torus", STRATA_ALL_REDUCE,
                              {0, 1, 2, 3, 4, 5, 6, 7}, static_cast<uint64_t>(s));
  EXPECT_NEAR(got, expected, expected * 1e-9);
  // A row of a 2x4 slice is a 1x4 ring: 2 * 3 latency steps.
  const double row = estimate(**rt, "tpu_sim/all_reduce/torus", STRATA_ALL_REDUCE, {4, 5, 6, 7},
                              static_cast<uint64_t>(s));
  EXPECT_NEAR(row, 2 * alpha * 3 + 2 * s * beta * 3 / 4 + s * gamma * 3 / 4, 1e-12);
  // Half a row, cores 4 and 6: the ring's edges each cross two links.
  const double split = estimate(**rt, "tpu_sim/all_reduce/torus", STRATA_ALL_REDUCE, {4, 6},
                                static_cast<uint64_t>(s));
  EXPECT_NEAR(split, 2 * alpha * 2 + 2 * (s / 2) * beta + (s / 2) * gamma, 1e-12);
}

// With pace_links the simulated links take the model's time, so a timed
// call must come out at (about) its estimate: the schedule really runs the
// rings in parallel and pipelines as the model says.
TEST(TpuCostModel, PacedLinksMakeMeasuredTimeFollowTheModel) {
  auto rt = tpu_runtime(2, 2, {{"alpha_us", "4000"}, {"link_gbytes_per_s", "1"},
                               {"pace_links", "true"}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  auto team = tpu_team(*rt, {0, 1, 2, 3});
  ASSERT_TRUE(team.ok()) << team.status();
  const auto table = tpu_table(**rt);
  const uint64_t count = 1 << 20;  // 4 MiB of f32: 1 ms per MiB on a link
  std::vector<sdk::DeviceBuffer> bufs;
  std::vector<Buffer> views;
  for (int c = 0; c < 4; ++c) {
    bufs.emplace_back(table, c, count * 4);
    views.push_back(Buffer{bufs.back().data(), DType::kF32, count,
                           strata_device_t{(*rt)->registry().find_device_type("tpu")->id, c}});
  }
  for (const char* id : {"tpu_sim/all_reduce/torus", "tpu_sim/all_gather/torus"}) {
    const bool gather = std::string(id).find("all_gather") != std::string::npos;
    const uint64_t per = gather ? count / 4 : count;
    std::vector<Buffer> in = views, out = views;
    for (int c = 0; c < 4 && gather; ++c) {
      in[static_cast<size_t>(c)].data = static_cast<char*>(views[static_cast<size_t>(c)].data) +
                                        static_cast<uint64_t>(c) * per * 4;
      in[static_cast<size_t>(c)].count = per;
    }
    const double model = estimate(**rt, id, gather ? STRATA_ALL_GATHER : STRATA_ALL_REDUCE,
                                  {0, 1, 2, 3}, per * 4);
    CallOptions forced;
    forced.algorithm = id;
    auto call = [&] {
      return gather ? (*team)->all_gather(in, out, forced)
                    : (*team)->all_reduce(in, out, ReduceOp::kSum, forced);
    };
    // The first call also builds the team and faults in its scratch.
    ASSERT_TRUE(call().ok());
    const auto start = std::chrono::steady_clock::now();
    const Status s = call();
    const double measured =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(s.ok()) << s;
    std::cout << id << ": measured " << measured * 1e3 << " ms, modelled " << model * 1e3
              << " ms\n";
    // Never faster than the links allow: that is what pacing promises. How
    // much slower (thread wake-ups, the reductions) depends on the machine's
    // load, so it is printed, not asserted; docs/TPU.md has the figures.
    EXPECT_GE(measured, model * 0.97) << id;
  }
}

// A core that waits for another core's event longer than its deadline
// fails its later work with an error naming both cores; nothing hangs.
TEST(TpuStreams, AWaitPastItsDeadlineFailsTheCoreWithContext) {
  auto rt = tpu_runtime(1, 2, {{"alpha_us", "1500000"}, {"pace_links", "true"},
                               {"stream_wait_timeout_s", "0.2"}});
  ASSERT_TRUE(rt.ok()) << rt.status();
  const auto table = tpu_table(**rt);
  sdk::DeviceBuffer a(table, 0, 64), b(table, 1, 64);
  table.copy_async(1, b.data(), 1, a.data(), 0, 64);  // 1.5 s on the link
  sdk::DeviceEvent busy(table, 1);
  busy.record();
  busy.make_stream_wait(0);
  try {
    table.synchronize(0, 10s);
    ADD_FAILURE() << "core 0 drained although its wait could not be met";
  } catch (const sdk::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tpu:0"), std::string::npos) << what;
    EXPECT_NE(what.find("event of tpu:1"), std::string::npos) << what;
  }
  table.synchronize(1, 10s);  // the slow copy itself completes
}

}  // namespace
}  // namespace strata::testing
