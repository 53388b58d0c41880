// Every dtype and operator of the ABI through shm's reducing collectives
// (all_reduce, reduce_scatter, reduce), on the direct and the sliced path,
// and all_reduce's mapped algorithm on shm_host buffers, in place and out of
// place, against a reference computed here in double; plus the declines
// that do not need a running team.
#include <cmath>
#include <cstring>
#include <sstream>

#include <gtest/gtest.h>

#include "shared_heap.h"
#include "shm_harness.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::shm::testing {
namespace {

using std::chrono::milliseconds;

constexpr int kReduceRanks = 3;

// Whole numbers 1..5 that differ by rank and element: every sum and product
// of three is exact in every dtype (u8 and bf16 included), and a mean within
// one rounding.
double value(int rank, uint64_t i) {
  return static_cast<double>((static_cast<uint64_t>(rank) * 7 + i * 3) % 5 + 1);
}

void put(strata_dtype_t dtype, void* data, uint64_t i, double v) {
  switch (dtype) {
    case STRATA_F32: static_cast<float*>(data)[i] = static_cast<float>(v); break;
    case STRATA_F64: static_cast<double*>(data)[i] = v; break;
    case STRATA_F16: static_cast<uint16_t*>(data)[i] = sdk::float_to_half(static_cast<float>(v)); break;
    case STRATA_BF16:
      static_cast<uint16_t*>(data)[i] = sdk::float_to_bfloat16(static_cast<float>(v));
      break;
    case STRATA_I32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(v); break;
    case STRATA_I64: static_cast<int64_t*>(data)[i] = static_cast<int64_t>(v); break;
    default: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(v); break;
  }
}

double get(strata_dtype_t dtype, const void* data, uint64_t i) {
  switch (dtype) {
    case STRATA_F32: return static_cast<const float*>(data)[i];
    case STRATA_F64: return static_cast<const double*>(data)[i];
    case STRATA_F16: return sdk::half_to_float(static_cast<const uint16_t*>(data)[i]);
    case STRATA_BF16: return sdk::bfloat16_to_float(static_cast<const uint16_t*>(data)[i]);
    case STRATA_I32: return static_cast<const int32_t*>(data)[i];
    case STRATA_I64: return static_cast<double>(static_cast<const int64_t*>(data)[i]);
    default: return static_cast<const uint8_t*>(data)[i];
  }
}

bool is_integer(strata_dtype_t dtype) {
  return dtype == STRATA_I32 || dtype == STRATA_I64 || dtype == STRATA_U8;
}

double reference(strata_dtype_t dtype, strata_redop_t op, uint64_t i) {
  double r = value(0, i);
  for (int k = 1; k < kReduceRanks; ++k) {
    const double v = value(k, i);
    switch (op) {
      case STRATA_PROD: r *= v; break;
      case STRATA_MIN: r = std::min(r, v); break;
      case STRATA_MAX: r = std::max(r, v); break;
      default: r += v; break;
    }
  }
  if (op == STRATA_MEAN) r = is_integer(dtype) ? std::trunc(r / kReduceRanks) : r / kReduceRanks;
  return r;
}

struct Shape {
  strata_op_t op;
  uint64_t count;
  bool in_place;
  bool mapped = false;  // shm/<op>/mapped on shm_host buffers
};

// One call's bytes: from the C++ heap, or shm_host memory (SharedHeap) for
// a mapped call, allocated afresh for every call so peers' mappings of
// freed buffers are dropped and made again.
class CallBuffer {
 public:
  CallBuffer(uint64_t bytes, bool shared)
      : shared_(shared),
        data_(shared ? static_cast<std::byte*>(SharedHeap::instance().allocate(bytes))
                     : new std::byte[bytes]) {}
  ~CallBuffer() {
    if (shared_) {
      SharedHeap::instance().free(data_);
    } else {
      delete[] data_;
    }
  }
  CallBuffer(const CallBuffer&) = delete;
  CallBuffer& operator=(const CallBuffer&) = delete;
  std::byte* data() const { return data_; }

 private:
  bool shared_;
  std::byte* data_;
};

// Runs every dtype x operator of `shape` on one team of kReduceRanks processes;
// each rank reports its mismatches.
void run_every_dtype_and_operator(const Shape& shape) {
  Job job(kReduceRanks);
  job.start([&](int r, FileStoreHost& host) {
    auto algorithm = shape.mapped ? make_mapped_algorithm(shape.op, test_options())
                                  : make_algorithm(shape.op, test_options());
    Rank rank(host, r, kReduceRanks, milliseconds(5000));
    if (Outcome o = rank.form(*algorithm); o.code != STRATA_OK) {
      job.report_from(r, "formation: " + o.message);
      return 1;
    }
    std::ostringstream errors;
    const bool scatter = shape.op == STRATA_REDUCE_SCATTER;
    const uint64_t in_count = shape.count * (scatter ? kReduceRanks : 1);
    for (strata_dtype_t dtype = 0; dtype < STRATA_DTYPE_COUNT; ++dtype) {
      const size_t elem = sdk::dtype_size(dtype);
      for (strata_redop_t redop = 0; redop < STRATA_REDOP_COUNT; ++redop) {
        CallBuffer in(in_count * elem, shape.mapped), out(in_count * elem, shape.mapped);
        for (uint64_t i = 0; i < in_count; ++i) put(dtype, in.data(), i, value(r, i % shape.count));
        std::memset(out.data(), 0xEE, in_count * elem);
        void* input = in.data();
        void* output = shape.in_place ? (scatter ? in.data() + r * shape.count * elem : in.data())
                                      : out.data();
        const Outcome o = rank.call(*algorithm, shape.op, dtype, redop, input, output, shape.count,
                                    0, milliseconds(10000));
        const std::string what = std::string(sdk::dtype_name(dtype)) + " " + sdk::redop_name(redop);
        if (o.code != STRATA_OK) {
          errors << what << ": " << o.message << "\n";
          return 1;
        }
        if (shape.op == STRATA_REDUCE && r != 0) continue;  // only the root's output is written
        const double tolerance = dtype == STRATA_BF16 ? 1.0 / 64 : dtype == STRATA_F16 ? 1.0 / 512 : 1e-6;
        int reported = 0;
        for (uint64_t i = 0; i < shape.count && reported < 3; ++i) {
          const double want = reference(dtype, redop, i);
          const double got = get(dtype, output, i);
          if (std::fabs(got - want) > tolerance * std::fabs(want)) {
            errors << what << " element " << i << ": expected " << want << ", got " << got << "\n";
            ++reported;
          }
        }
      }
    }
    job.report_from(r, errors.str());
    return errors.str().empty() ? 0 : 1;
  });
  for (int r = 0; r < kReduceRanks; ++r) {
    EXPECT_EQ(job.reap(r, milliseconds(60000)), 0) << "rank " << r << ":\n" << job.report(r);
  }
}

class ShmReduce : public ::testing::TestWithParam<strata_op_t> {};

// 5 elements: the direct path (every rank reduces everything); 700: the
// sliced path over several 1 KiB chunks and both slots.
TEST_P(ShmReduce, EveryDtypeAndOperatorSmallInPlace) {
  run_every_dtype_and_operator({GetParam(), 5, true});
}
TEST_P(ShmReduce, EveryDtypeAndOperatorChunkedOutOfPlace) {
  run_every_dtype_and_operator({GetParam(), 700, false});
}
TEST_P(ShmReduce, EveryDtypeAndOperatorChunkedInPlace) {
  run_every_dtype_and_operator({GetParam(), 701, true});
}

std::string reduce_param_name(const ::testing::TestParamInfo<strata_op_t>& info) {
  return sdk::op_name(info.param);
}

// shm/all_reduce/mapped reads peers' inputs and writes their outputs: 5
// elements leave some ranks' slices empty, 700 and 701 do not.
TEST(ShmReduceMapped, EveryDtypeAndOperatorSmallInPlace) {
  run_every_dtype_and_operator({STRATA_ALL_REDUCE, 5, true, true});
}
TEST(ShmReduceMapped, EveryDtypeAndOperatorOutOfPlace) {
  run_every_dtype_and_operator({STRATA_ALL_REDUCE, 700, false, true});
}
TEST(ShmReduceMapped, EveryDtypeAndOperatorInPlace) {
  run_every_dtype_and_operator({STRATA_ALL_REDUCE, 701, true, true});
}

INSTANTIATE_TEST_SUITE_P(Reducing, ShmReduce,
                         ::testing::Values(STRATA_ALL_REDUCE, STRATA_REDUCE_SCATTER, STRATA_REDUCE),
                         reduce_param_name);

TEST(ShmDecline, TeamsThatSpanHostsAreDeclined) {
  auto algorithm = make_all_reduce_sliced(test_options());
  strata_device_t device{0, 0};
  strata_team_desc_t team{};
  team.struct_size = sizeof team;
  team.process_count = 4;
  team.local_count = 1;
  team.local_devices = &device;
  team.replica_count = 4;
  team.host_count = 2;
  strata_call_desc_t call{};
  call.struct_size = sizeof call;
  call.op = STRATA_ALL_REDUCE;
  call.dtype = STRATA_F32;
  call.count = 10;
  call.team = &team;
  EXPECT_EQ(algorithm->decline(call).value_or(""),
            "processes span 2 hosts; shm serves processes on one host");
  // A 1.1 host's team description ends before host_count: never read.
  team.struct_size = offsetof(strata_team_desc_t, host_count);
  EXPECT_EQ(ShmAlgorithm::host_count(team), 0);
}

TEST(ShmFormation, ARankOnAnotherHostIsNamed) {
  Job job(kReduceRanks);
  job.start([&](int r, FileStoreHost& host) {
    ::setenv("STRATA_HOST_ID", r == 1 ? "elsewhere" : "here", 1);
    auto algorithm = make_all_reduce_sliced(test_options());
    Rank rank(host, r, kReduceRanks, milliseconds(5000));
    const Outcome o = rank.form(*algorithm);
    job.report_from(r, o.message);
    job.wait_released(milliseconds(20000));
    return o.code == STRATA_FAILED_PRECONDITION ? 0 : 1;
  });
  EXPECT_TRUE(job.release_after_reports({0, 1, 2}, milliseconds(20000)));
  for (int r = 0; r < kReduceRanks; ++r) {
    EXPECT_EQ(job.reap(r, milliseconds(20000)), 0) << job.report(r);
    const std::string named = r == 1 ? "rank 0 (pid" : "rank 1 (pid";
    EXPECT_NE(job.report(r).find(named), std::string::npos) << job.report(r);
    EXPECT_NE(job.report(r).find("runs on another host"), std::string::npos) << job.report(r);
  }
}

}  // namespace
}  // namespace strata::shm::testing
