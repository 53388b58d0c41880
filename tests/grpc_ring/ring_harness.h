// Drives grpc_ring teams inside one test process: real ranks built through
// the plugin's own algorithm objects, and a fake neighbour that speaks the
// wire directly (its own RingServer and RingLink) so tests can send exactly
// the messages they want — malformed, replayed, oversized — or vanish.
#ifndef STRATA_TESTS_GRPC_RING_RING_HARNESS_H_
#define STRATA_TESTS_GRPC_RING_RING_HARNESS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fake_host.h"
#include "ring_algorithm.h"
#include "ring_link.h"
#include "ring_server.h"
#include "tcp_listener.h"
#include "wire.h"

namespace strata::grpc_ring::testing {

inline constexpr const char* kToken = "0123456789abcdef0123456789abcdef";

// Loopback, 4 KiB chunks, ring messages on `plane`.
GrpcRingOptions test_options(DataPlaneKind plane = DataPlaneKind::kTcp);
// "tcp" / "grpc", for test names.
std::string plane_name(DataPlaneKind plane);
std::string plane_test_name(const ::testing::TestParamInfo<DataPlaneKind>& info);

strata_team_desc_t team_desc(void* store, uint64_t id, int rank, int size,
                             std::chrono::milliseconds formation);

// What a call ended with: OK, or the error code and message.
struct Outcome {
  strata_status_t code = STRATA_OK;
  std::string message;
};

// The ABI call of one f32 sum `op` over `in` and `out`: the structs point
// at each other, so it is built in place and never copied.
struct F32Call {
  F32Call(const strata_team_desc_t& team, strata_op_t op, std::vector<float>& in,
          std::vector<float>& out, uint64_t count, uint64_t sequence = 0);
  F32Call(const F32Call&) = delete;
  F32Call& operator=(const F32Call&) = delete;

  strata_call_desc_t desc{};
  strata_buffer_t input{};
  strata_buffer_t output{};
  strata_call_t call{};
};

// One f32 call of `op` on `state`, waited for up to `timeout`; in and out
// hold count (times p for the gathered side) elements.
Outcome run_call(sdk::Algorithm& algorithm, sdk::TeamState* state, const strata_team_desc_t& team,
                 strata_op_t op, std::vector<float>& in, std::vector<float>& out, uint64_t count,
                 uint64_t sequence, std::chrono::milliseconds timeout);

// Both ranks of a two-process team, real and in this process.
struct TwoRanks {
  strata_team_desc_t desc[2]{};
  std::unique_ptr<sdk::TeamState> state[2];

  // Forms team `id` on both ranks concurrently, as two processes would.
  void form(sdk::Algorithm& algorithm, FakeHost& host, uint64_t id);
  // One f32 sum all_reduce of `count` elements, rank 0 giving `a` and rank 1
  // `b` everywhere; both must succeed with a + b in every element.
  void expect_all_reduce(sdk::Algorithm& algorithm, uint64_t sequence, uint64_t count, float a,
                         float b);
};

// Rank 1 of a two-process team whose rank 0 is real: accepts rank 0's
// stream on its own server, and opens its own stream to rank 0; on the tcp
// data plane also the pair of data connections, whose messages it writes
// byte by byte as it is told.
class FakeNeighbour {
 public:
  // Publishes its address(es).
  FakeNeighbour(FakeHost& host, uint64_t team_id, DataPlaneKind plane = DataPlaneKind::kTcp);
  // Connects to rank 0 once it published its address (call after rank 0
  // started forming its team).
  void connect();
  void send(const Header& header, const std::vector<float>& payload);
  // Exactly these bytes as one message (grpc) or on the connection (tcp).
  void send_raw(const std::string& bytes);
  // Leaves as a crashed process would: both streams are cut.
  void vanish();
  Header header(uint64_t sequence, uint32_t step, uint64_t bytes) const;

 private:
  FakeHost& host_;
  uint64_t team_id_;
  DataPlaneKind plane_;
  Signal signal_;
  std::shared_ptr<Inbox> inbox_;
  std::unique_ptr<RingServer> server_;
  std::unique_ptr<RingLink> link_;
  std::unique_ptr<TcpListener> listener_;
  Fd to_rank0_, from_rank0_;
};

}  // namespace strata::grpc_ring::testing

#endif  // STRATA_TESTS_GRPC_RING_RING_HARNESS_H_
