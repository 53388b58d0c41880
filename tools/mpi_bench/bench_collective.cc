#include "tools/mpi_bench/bench_collective.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "tools/mpi_bench/bench_array.h"

namespace strata {
namespace {

constexpr int kBroadcastRoot = 0;

// Byte i of rank r's contribution: differs between ranks and along the
// buffer, and is never 0xFF or 0xFE, the values outputs start from.
uint8_t byte_pattern(int r, uint64_t i) {
  return static_cast<uint8_t>((i + 37 * static_cast<uint64_t>(r)) % 251);
}

// The plugin's small-payload schedule, written against MPI directly: each
// step posts the receive and the send, polls both with MPI_Testall and
// adds what arrived. f32 sum into `data`; `scratch` holds one message.
void p2p_recursive_doubling(float* data, float* scratch, int count, int rank, int world) {
  for (int mask = 1; mask < world; mask <<= 1) {
    const int peer = rank ^ mask;
    MPI_Request requests[2];
    MPI_Irecv(scratch, count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(data, count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &requests[1]);
    int done = 0;
    while (done == 0) MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
    for (int i = 0; i < count; ++i) data[i] += scratch[i];
  }
}

// f32 sum. Times with every input 1.0; checks with rank r's input r + 1,
// so every output element must be world(world + 1)/2.
class AllReduceBench final : public BenchCollective {
 public:
  explicit AllReduceBench(const BenchShape& s)
      : BenchCollective(std::max<uint64_t>(s.bytes / 4, 1) * 4),
        shape_(s),
        count_(bytes() / 4),
        data_(s.memory, count_, 1.0f),
        result_(s.memory, s.in_place ? 0 : count_, 0.0f),
        scratch_(nullptr, s.p2p_reference ? count_ : 0, 0.0f),
        in_{data_.data(), DType::kF32, count_, s.device},
        out_{s.in_place ? data_.data() : result_.data(), DType::kF32, count_, s.device} {}

  void call_reference() override {
    auto* out = static_cast<float*>(out_.data);
    if (shape_.p2p_reference) {
      if (!shape_.in_place) std::copy(data_.begin(), data_.end(), out);
      p2p_recursive_doubling(out, scratch_.data(), static_cast<int>(count_), shape_.rank,
                             shape_.world);
      return;
    }
    MPI_Allreduce(shape_.in_place ? MPI_IN_PLACE : data_.data(), out, static_cast<int>(count_),
                  MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  Status call_strata(CollectiveOps& ops, const CallOptions& call) override {
    return ops.all_reduce({&in_, 1}, {&out_, 1}, ReduceOp::kSum, call);
  }
  void refill() override { std::fill(data_.begin(), data_.end(), 1.0f); }

 private:
  void fill_for_check() override {
    std::fill(data_.begin(), data_.end(), static_cast<float>(shape_.rank + 1));
    std::fill(result_.begin(), result_.end(), -1.0f);
  }
  long long count_wrong() const override {
    const auto expected = static_cast<float>(shape_.world * (shape_.world + 1) / 2);
    const auto* out = static_cast<const float*>(out_.data);
    return std::count_if(out, out + count_, [&](float v) { return v != expected; });
  }

  BenchShape shape_;
  uint64_t count_;
  BenchArray<float> data_, result_, scratch_;
  Buffer in_, out_;
};

// Bytes (u8) from rank 0. MPI_Bcast has no out-of-place form: out of
// place, the reference's root copies its input to its output and
// broadcasts that, so both sides leave the same bytes in every output.
class BroadcastBench final : public BenchCollective {
 public:
  explicit BroadcastBench(const BenchShape& s)
      : BenchCollective(std::max<uint64_t>(s.bytes, 1)),
        shape_(s),
        input_(s.memory, bytes(), 1),
        output_(s.memory, s.in_place ? 0 : bytes(), 0),
        in_{input_.data(), DType::kU8, bytes(), s.device},
        out_{s.in_place ? input_.data() : output_.data(), DType::kU8, bytes(), s.device} {}

  void call_reference() override {
    if (!shape_.in_place && shape_.rank == kBroadcastRoot) {
      std::memcpy(out_.data, in_.data, bytes());
    }
    MPI_Bcast(out_.data, static_cast<int>(bytes()), MPI_BYTE, kBroadcastRoot, MPI_COMM_WORLD);
  }
  Status call_strata(CollectiveOps& ops, const CallOptions& call) override {
    return ops.broadcast({&in_, 1}, {&out_, 1}, kBroadcastRoot, call);
  }

 private:
  // A non-root's input (out of place) holds 0xFE: an algorithm that sent
  // it instead of the root's is caught too.
  void fill_for_check() override {
    const bool root = shape_.rank == kBroadcastRoot;
    for (uint64_t i = 0; i < bytes(); ++i) input_[i] = root ? byte_pattern(0, i) : 0xFE;
    std::fill(output_.begin(), output_.end(), 0xFF);
    if (shape_.in_place && !root) std::fill(input_.begin(), input_.end(), 0xFF);
  }
  long long count_wrong() const override {
    const auto* out = static_cast<const uint8_t*>(out_.data);
    long long wrong = 0;
    for (uint64_t i = 0; i < bytes(); ++i) wrong += out[i] != byte_pattern(0, i);
    return wrong;
  }

  BenchShape shape_;
  BenchArray<uint8_t> input_, output_;
  Buffer in_, out_;
};

// Bytes (u8): each rank gives bytes / world of them. In place, a rank's
// input is its own slot of the output (MPI_IN_PLACE's layout).
class AllGatherBench final : public BenchCollective {
 public:
  explicit AllGatherBench(const BenchShape& s)
      : BenchCollective(part_of(s) * static_cast<uint64_t>(s.world)),
        shape_(s),
        part_(part_of(s)),
        input_(s.memory, s.in_place ? 0 : part_, 1),
        output_(s.memory, bytes(), 0),
        in_{s.in_place ? output_.data() + static_cast<uint64_t>(s.rank) * part_ : input_.data(),
            DType::kU8, part_, s.device},
        out_{output_.data(), DType::kU8, bytes(), s.device} {}

  void call_reference() override {
    const int n = static_cast<int>(part_);
    MPI_Allgather(shape_.in_place ? MPI_IN_PLACE : input_.data(), n, MPI_BYTE, output_.data(), n,
                  MPI_BYTE, MPI_COMM_WORLD);
  }
  Status call_strata(CollectiveOps& ops, const CallOptions& call) override {
    return ops.all_gather({&in_, 1}, {&out_, 1}, call);
  }

 private:
  static uint64_t part_of(const BenchShape& s) {
    return std::max<uint64_t>(s.bytes / static_cast<uint64_t>(s.world), 1);
  }
  void fill_for_check() override {
    std::fill(output_.begin(), output_.end(), 0xFF);
    auto* in = static_cast<uint8_t*>(in_.data);
    for (uint64_t i = 0; i < part_; ++i) in[i] = byte_pattern(shape_.rank, i);
  }
  long long count_wrong() const override {
    long long wrong = 0;
    for (int r = 0; r < shape_.world; ++r) {
      const uint8_t* slot = output_.data() + static_cast<uint64_t>(r) * part_;
      for (uint64_t i = 0; i < part_; ++i) wrong += slot[i] != byte_pattern(r, i);
    }
    return wrong;
  }

  BenchShape shape_;
  uint64_t part_;
  BenchArray<uint8_t> input_, output_;
  Buffer in_, out_;
};

}  // namespace

std::optional<BenchOp> parse_bench_op(std::string_view name) {
  if (name == "all_reduce") return BenchOp::kAllReduce;
  if (name == "broadcast") return BenchOp::kBroadcast;
  if (name == "all_gather") return BenchOp::kAllGather;
  return std::nullopt;
}

const char* bench_op_name(BenchOp op) {
  switch (op) {
    case BenchOp::kAllReduce: return "all_reduce";
    case BenchOp::kBroadcast: return "broadcast";
    case BenchOp::kAllGather: return "all_gather";
  }
  return "?";
}

const char* mpi_reference_name(BenchOp op, bool p2p) {
  switch (op) {
    case BenchOp::kAllReduce:
      return p2p ? "hand-written p2p recursive doubling" : "raw MPI_Allreduce";
    case BenchOp::kBroadcast: return "raw MPI_Bcast";
    case BenchOp::kAllGather: return "raw MPI_Allgather";
  }
  return "?";
}

const char* bench_op_data(BenchOp op) {
  switch (op) {
    case BenchOp::kAllReduce: return "f32 sum";
    case BenchOp::kBroadcast: return "u8, root 0";
    case BenchOp::kAllGather: return "u8, size = whole output";
  }
  return "?";
}

double bus_factor(BenchOp op, int world) {
  const double p = world;
  switch (op) {
    case BenchOp::kAllReduce: return 2 * (p - 1) / p;
    case BenchOp::kAllGather: return (p - 1) / p;
    case BenchOp::kBroadcast: return 1;
  }
  return 1;
}

long long BenchCollective::wrong_after(const std::function<void()>& one_call) {
  fill_for_check();
  one_call();
  return count_wrong();
}

StatusOr<std::unique_ptr<BenchCollective>> make_bench_collective(const BenchShape& shape) {
  if (shape.p2p_reference && shape.op != BenchOp::kAllReduce) {
    return InvalidArgumentError(std::string("--reference p2p is an all_reduce; not for ") +
                                bench_op_name(shape.op));
  }
  if (shape.bytes > static_cast<uint64_t>(INT_MAX)) {
    return InvalidArgumentError("strata-mpi-bench: " + std::to_string(shape.bytes) +
                                " B is more than one MPI call's int count");
  }
  std::unique_ptr<BenchCollective> made;
  try {
    switch (shape.op) {
      case BenchOp::kAllReduce: made = std::make_unique<AllReduceBench>(shape); break;
      case BenchOp::kBroadcast: made = std::make_unique<BroadcastBench>(shape); break;
      case BenchOp::kAllGather: made = std::make_unique<AllGatherBench>(shape); break;
    }
  } catch (const std::runtime_error& e) {
    return OutOfMemoryError(std::string("strata-mpi-bench: buffers of ") +
                                  std::to_string(shape.bytes) + " B: " + e.what());
  }
  return made;
}

}  // namespace strata
