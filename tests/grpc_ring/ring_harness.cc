#include "ring_harness.h"

#include <gtest/gtest.h>

#include <future>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "tcp_link.h"

namespace strata::grpc_ring::testing {
namespace {

const strata_device_t kDevice{0, 0};

}  // namespace

GrpcRingOptions test_options(DataPlaneKind plane) {
  GrpcRingOptions o;
  o.listen_address = "127.0.0.1:0";
  o.chunk_bytes = 4096;
  o.data_plane = plane;
  return o;
}

std::string plane_name(DataPlaneKind plane) {
  return plane == DataPlaneKind::kGrpc ? "grpc" : "tcp";
}

std::string plane_test_name(const ::testing::TestParamInfo<DataPlaneKind>& info) {
  return plane_name(info.param);
}

strata_team_desc_t team_desc(void* store, uint64_t id, int rank, int size,
                             std::chrono::milliseconds formation) {
  strata_team_desc_t t{};
  t.struct_size = sizeof t;
  t.team_id = id;
  t.process_rank = rank;
  t.process_count = size;
  t.local_count = 1;
  t.local_devices = &kDevice;
  t.replica_offset = rank;
  t.replica_count = size;
  t.store = store;
  t.deadline_ns = sdk::Host::now_ns() +
                  std::chrono::duration_cast<std::chrono::nanoseconds>(formation).count();
  return t;
}

F32Call::F32Call(const strata_team_desc_t& team, strata_op_t op, std::vector<float>& in,
                 std::vector<float>& out, uint64_t count, uint64_t sequence)
    : input{in.data(), STRATA_F32, in.size(), kDevice},
      output{out.data(), STRATA_F32, out.size(), kDevice} {
  desc.struct_size = sizeof desc;
  desc.op = op;
  desc.dtype = STRATA_F32;
  desc.redop = STRATA_SUM;
  desc.count = count;
  desc.team = &team;
  call.struct_size = sizeof call;
  call.desc = &desc;
  call.inputs = &input;
  call.outputs = &output;
  call.sequence = sequence;
}

Outcome run_call(sdk::Algorithm& algorithm, sdk::TeamState* state, const strata_team_desc_t& team,
                 strata_op_t op, std::vector<float>& in, std::vector<float>& out, uint64_t count,
                 uint64_t sequence, std::chrono::milliseconds timeout) {
  const F32Call abi(team, op, in, out, count, sequence);
  try {
    auto operation = algorithm.create(state, abi.call);
    operation->post();
    if (!operation->wait(timeout)) {
      operation->abort();
      return {STRATA_TIMED_OUT, "the call did not finish in time"};
    }
    return {};
  } catch (const sdk::Error& e) {
    return {e.code(), e.what()};
  }
}

FakeNeighbour::FakeNeighbour(FakeHost& host, uint64_t team_id, DataPlaneKind plane)
    : host_(host), team_id_(team_id), plane_(plane), inbox_(std::make_shared<Inbox>(signal_)) {
  ServerConfig sc;
  sc.listen_address = "127.0.0.1:0";
  sc.credentials = grpc::InsecureServerCredentials();
  sc.team_id = team_id;
  sc.rank = 1;
  sc.expected_sender = 0;
  sc.token = kToken;
  sc.max_message_bytes = 1 << 20;
  sc.window_bytes = 1 << 20;
  sc.services = sdk::Host::services();
  server_ = std::make_unique<RingServer>(std::move(sc), inbox_);
  sdk::Host::store_set(host_.store(), "grpc_ring/address/1",
                       "127.0.0.1:" + std::to_string(server_->port()));
  if (plane_ == DataPlaneKind::kTcp) {
    listener_ = std::make_unique<TcpListener>("127.0.0.1");
    sdk::Host::store_set(host_.store(), "grpc_ring/tcp_address/1",
                         "127.0.0.1:" + std::to_string(listener_->port()));
  }
}

void FakeNeighbour::connect() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  const std::string address = sdk::Host::store_get(
      host_.store(), "grpc_ring/address/0", sdk::Host::now_ns() + 10'000'000'000);
  LinkConfig lc;
  lc.channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  lc.token = kToken;
  lc.team_id = team_id_;
  lc.rank = 1;
  lc.peer = 0;
  lc.peer_address = address;
  link_ = std::make_unique<RingLink>(std::move(lc), signal_);
  link_->open(deadline);
  if (plane_ != DataPlaneKind::kTcp) return;
  const std::string tcp_address = sdk::Host::store_get(
      host_.store(), "grpc_ring/tcp_address/0", sdk::Host::now_ns() + 10'000'000'000);
  to_rank0_ = TcpLink::dial(tcp_address, team_id_, 1, 0, kToken, deadline);
  Door door;
  door.team_id = team_id_;
  door.rank = 1;
  door.expected_sender = 0;
  door.token = kToken;
  from_rank0_ = listener_->accept_neighbour(door, deadline);
  listener_.reset();
  TcpLink::await_welcome(to_rank0_.get(), 0, tcp_address, deadline);
}

Header FakeNeighbour::header(uint64_t sequence, uint32_t step, uint64_t bytes) const {
  Header h;
  h.op = STRATA_ALL_REDUCE;
  h.team_id = team_id_;
  h.sequence = sequence;
  h.step = step;
  h.dtype = STRATA_F32;
  h.sender = 1;
  h.bytes = bytes;
  return h;
}

void FakeNeighbour::send(const Header& header, const std::vector<float>& payload) {
  std::string bytes(kHeaderBytes, '\0');
  write_header(header, reinterpret_cast<std::byte*>(bytes.data()));
  bytes.append(reinterpret_cast<const char*>(payload.data()), header.bytes);
  send_raw(bytes);
}

void FakeNeighbour::send_raw(const std::string& bytes) {
  if (plane_ == DataPlaneKind::kGrpc) {
    grpc::Slice slice(bytes);
    link_->send(grpc::ByteBuffer(&slice, bytes.empty() ? 0 : 1));
    return;
  }
  std::string error;
  ASSERT_TRUE(write_fully(to_rank0_.get(), bytes.data(), bytes.size(),
                          std::chrono::steady_clock::now() + std::chrono::seconds(10), &error))
      << error;
}

void FakeNeighbour::vanish() {
  to_rank0_.reset();
  from_rank0_.reset();
  link_.reset();
  server_.reset();
}

void TwoRanks::form(sdk::Algorithm& algorithm, FakeHost& host, uint64_t id) {
  using namespace std::chrono_literals;
  for (int r = 0; r < 2; ++r) desc[r] = team_desc(host.store(), id, r, 2, 10s);
  auto other = std::async(std::launch::async, [&] { return algorithm.create_team(desc[1]); });
  state[0] = algorithm.create_team(desc[0]);
  state[1] = other.get();
}

void TwoRanks::expect_all_reduce(sdk::Algorithm& algorithm, uint64_t sequence, uint64_t count,
                                 float a, float b) {
  using namespace std::chrono_literals;
  std::vector<float> in[2] = {std::vector<float>(count, a), std::vector<float>(count, b)};
  std::vector<float> out[2] = {std::vector<float>(count), std::vector<float>(count)};
  auto one = std::async(std::launch::async, [&] {
    return run_call(algorithm, state[1].get(), desc[1], STRATA_ALL_REDUCE, in[1], out[1], count,
                    sequence, 10s);
  });
  const Outcome zero = run_call(algorithm, state[0].get(), desc[0], STRATA_ALL_REDUCE, in[0],
                                out[0], count, sequence, 10s);
  EXPECT_EQ(zero.code, STRATA_OK) << zero.message;
  EXPECT_EQ(one.get().code, STRATA_OK);
  EXPECT_EQ(out[0], std::vector<float>(count, a + b));
  EXPECT_EQ(out[1], std::vector<float>(count, a + b));
}

}  // namespace strata::grpc_ring::testing
