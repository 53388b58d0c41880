// The cuda device type's reduce kernel against the SDK's host kernels
// (sdk::reduce_host_multi), byte for byte: every dtype and operator, 1 to 5
// sources, 1 or 2 destinations, in place and out of place, the conformance
// counts, and guard elements around every destination that must survive.
// Skips (with the reason) without a GPU.
#include <cstring>
#include <random>
#include <vector>

#include "gpu_test_env.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::nccl::test {
namespace {

constexpr uint64_t kGuard = 64;  // elements before and after each destination
constexpr unsigned char kGuardByte = 0xA5;

// Values that keep every operator finite for up to 5 sources (no NaN, whose
// payload a GPU may change) and exercise rounding in f16/bf16.
std::vector<unsigned char> values(strata_dtype_t dtype, uint64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-4.0f, 4.0f);
  std::vector<unsigned char> out(count * sdk::dtype_size(dtype));
  for (uint64_t i = 0; i < count; ++i) {
    unsigned char* p = out.data() + i * sdk::dtype_size(dtype);
    const float f = real(rng);
    switch (dtype) {
      case STRATA_F32: std::memcpy(p, &f, 4); break;
      case STRATA_F64: { const double d = static_cast<double>(f) * 1.0000001; std::memcpy(p, &d, 8); break; }
      case STRATA_F16: { const uint16_t h = sdk::float_to_half(f); std::memcpy(p, &h, 2); break; }
      case STRATA_BF16: { const uint16_t b = sdk::float_to_bfloat16(f); std::memcpy(p, &b, 2); break; }
      case STRATA_I32: { const auto v = static_cast<int32_t>(rng()); std::memcpy(p, &v, 4); break; }
      case STRATA_I64: {
        const int64_t v = (static_cast<int64_t>(rng()) << 32) ^ rng();
        std::memcpy(p, &v, 8);
        break;
      }
      default: *p = static_cast<unsigned char>(rng()); break;
    }
  }
  return out;
}

class ReduceKernelTest
    : public ::testing::TestWithParam<std::tuple<strata_dtype_t, strata_redop_t>> {};

TEST_P(ReduceKernelTest, MatchesTheHostKernelByteForByte) {
  STRATA_REQUIRE_GPUS(1);
  const auto [dtype, op] = GetParam();
  const size_t elem = sdk::dtype_size(dtype);
  auto type = make_cuda_type();
  const std::vector<std::pair<uint32_t, uint32_t>> shapes{{1, 1}, {2, 1}, {3, 2}, {5, 2}};
  for (const uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{1023}, uint64_t{65537}}) {
    for (const auto& [num_srcs, num_dsts] : shapes) {
      for (const bool in_place : {false, true}) {
        SCOPED_TRACE(std::string(sdk::dtype_name(dtype)) + " " + sdk::redop_name(op) + " count " +
                     std::to_string(count) + " srcs " + std::to_string(num_srcs) + " dsts " +
                     std::to_string(num_dsts) + (in_place ? " in place" : ""));
        const uint64_t bytes = count * elem;
        const uint64_t guarded = bytes + 2 * kGuard * elem;
        std::vector<std::vector<unsigned char>> host_srcs;
        std::vector<void*> dev_srcs;
        for (uint32_t k = 0; k < num_srcs; ++k) {
          host_srcs.push_back(values(dtype, count, 1000 * k + static_cast<uint32_t>(count)));
          dev_srcs.push_back(type->allocate(0, guarded));
          type->copy_async(0, static_cast<char*>(dev_srcs[k]) + kGuard * elem, 0,
                           host_srcs[k].data(), STRATA_HOST_INDEX, bytes);
        }
        std::vector<void*> dev_dsts;
        std::vector<unsigned char> pattern(guarded, kGuardByte);
        for (uint32_t d = 0; d < num_dsts; ++d) {
          // In place: the first destination is the first source itself.
          void* base = in_place && d == 0 ? dev_srcs[0] : type->allocate(0, guarded);
          if (!(in_place && d == 0)) type->copy_async(0, base, 0, pattern.data(), STRATA_HOST_INDEX, guarded);
          dev_dsts.push_back(base);
        }
        std::vector<const void*> srcs;
        for (void* p : dev_srcs) srcs.push_back(static_cast<char*>(p) + kGuard * elem);
        std::vector<void*> dsts;
        for (void* p : dev_dsts) dsts.push_back(static_cast<char*>(p) + kGuard * elem);
        type->reduce_async(0, dtype, op, dsts, srcs, count, num_srcs);
        type->synchronize(0, kTimeout);

        std::vector<const void*> hsrcs;
        for (const auto& h : host_srcs) hsrcs.push_back(h.data());
        std::vector<unsigned char> expected(bytes + 1);
        void* const hdst[1] = {expected.data()};
        ASSERT_TRUE(sdk::reduce_host_multi(dtype, op, hdst, 1, hsrcs.data(), num_srcs, count, num_srcs));
        for (uint32_t d = 0; d < num_dsts; ++d) {
          std::vector<unsigned char> got(guarded);
          type->copy_async(0, got.data(), STRATA_HOST_INDEX, dev_dsts[d], 0, guarded);
          type->synchronize(0, kTimeout);
          EXPECT_EQ(std::memcmp(got.data() + kGuard * elem, expected.data(), bytes), 0)
              << "destination " << d << " differs from the host kernel";
          if (!(in_place && d == 0)) {
            for (uint64_t i = 0; i < kGuard * elem; ++i) {
              ASSERT_EQ(got[i], kGuardByte) << "guard before destination " << d << " written";
              ASSERT_EQ(got[guarded - 1 - i], kGuardByte) << "guard after destination " << d << " written";
            }
          }
        }
        for (uint32_t d = 0; d < num_dsts; ++d) {
          if (!(in_place && d == 0)) type->free(0, dev_dsts[d]);
        }
        for (void* p : dev_srcs) type->free(0, p);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryDtypeAndOperator, ReduceKernelTest,
    ::testing::Combine(::testing::Values(STRATA_F32, STRATA_F64, STRATA_F16, STRATA_BF16, STRATA_I32,
                                         STRATA_I64, STRATA_U8),
                       ::testing::Values(STRATA_SUM, STRATA_PROD, STRATA_MIN, STRATA_MAX, STRATA_MEAN)),
    [](const auto& case_info) {
      return std::string(sdk::dtype_name(std::get<0>(case_info.param))) + "_" +
             sdk::redop_name(std::get<1>(case_info.param));
    });

}  // namespace
}  // namespace strata::nccl::test
