// The plugin's mapping of Strata's types, operators and errors onto NCCL's,
// and the checks that need no GPU: they run on CI.
#include <gtest/gtest.h>

#include "cuda_devices.h"
#include "cuda_error.h"
#include "nccl_types.h"
#include "strata/sdk/error.h"

namespace strata::nccl {
namespace {

TEST(NcclTypes, EveryStrataDtypeHasAnNcclTwin) {
  EXPECT_EQ(nccl_dtype(STRATA_F32), ncclFloat32);
  EXPECT_EQ(nccl_dtype(STRATA_F64), ncclFloat64);
  EXPECT_EQ(nccl_dtype(STRATA_F16), ncclFloat16);
  EXPECT_EQ(nccl_dtype(STRATA_BF16), ncclBfloat16);
  EXPECT_EQ(nccl_dtype(STRATA_I32), ncclInt32);
  EXPECT_EQ(nccl_dtype(STRATA_I64), ncclInt64);
  EXPECT_EQ(nccl_dtype(STRATA_U8), ncclUint8);
  for (strata_dtype_t d = 0; d < STRATA_DTYPE_COUNT; ++d) {
    EXPECT_EQ(unsupported(d, STRATA_SUM, NCCL_VERSION_CODE), std::nullopt) << d;
  }
}

TEST(NcclTypes, MeanIsASumTheGpuDividesAfterwards) {
  EXPECT_EQ(nccl_op(STRATA_SUM), ncclSum);
  EXPECT_EQ(nccl_op(STRATA_MEAN), ncclSum);
  EXPECT_EQ(nccl_op(STRATA_PROD), ncclProd);
  EXPECT_EQ(nccl_op(STRATA_MIN), ncclMin);
  EXPECT_EQ(nccl_op(STRATA_MAX), ncclMax);
}

TEST(NcclTypes, DeclinesWhatItCannotCarry) {
  const auto newer = unsupported(STRATA_DTYPE_COUNT, STRATA_SUM, NCCL_VERSION_CODE);
  ASSERT_TRUE(newer.has_value());
  EXPECT_NE(newer->find("unknown to this build"), std::string::npos) << *newer;
  const auto op = unsupported(STRATA_F32, STRATA_REDOP_COUNT, NCCL_VERSION_CODE);
  ASSERT_TRUE(op.has_value());
  EXPECT_NE(op->find("operator"), std::string::npos) << *op;
  // bf16 arrived in NCCL 2.10: an older libnccl at run time declines it.
  const auto old = unsupported(STRATA_BF16, STRATA_SUM, 20907);
  ASSERT_TRUE(old.has_value());
  EXPECT_NE(old->find("2.10"), std::string::npos) << *old;
  EXPECT_EQ(unsupported(STRATA_F16, STRATA_SUM, 20907), std::nullopt);
  try {
    (void)nccl_dtype(STRATA_DTYPE_COUNT);
    ADD_FAILURE() << "no exception";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_NOT_SUPPORTED);
  }
}

TEST(NcclTypes, ErrorsMapToStatusesWithNcclsText) {
  EXPECT_EQ(nccl_status(ncclSuccess), STRATA_OK);
  EXPECT_EQ(nccl_status(ncclRemoteError), STRATA_PEER_FAILED);
  EXPECT_EQ(nccl_status(ncclInvalidArgument), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(nccl_status(ncclInvalidUsage), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(nccl_status(ncclSystemError), STRATA_UNAVAILABLE);
  EXPECT_EQ(nccl_status(ncclInternalError), STRATA_INTERNAL);
  try {
    check_nccl(ncclRemoteError, "ncclAllReduce", nullptr);
    ADD_FAILURE() << "no exception";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_PEER_FAILED);
    EXPECT_NE(std::string(e.what()).find("ncclAllReduce: "), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_nccl(ncclInProgress, "x", nullptr, /*allow_in_progress=*/true));
  EXPECT_THROW(check_nccl(ncclInProgress, "x", nullptr), sdk::Error);
}

TEST(CudaErrors, NameTheDeviceTheCallAndCudasText) {
  EXPECT_EQ(cuda_status(cudaErrorMemoryAllocation), STRATA_OUT_OF_MEMORY);
  EXPECT_EQ(cuda_status(cudaErrorInvalidValue), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(cuda_status(cudaErrorLaunchFailure), STRATA_INTERNAL);
  try {
    check_cuda(cudaErrorMemoryAllocation, "cudaMalloc(64 bytes)", 3);
    ADD_FAILURE() << "no exception";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_OUT_OF_MEMORY);
    EXPECT_EQ(std::string(e.what()).rfind("cuda:3 cudaMalloc(64 bytes): cudaErrorMemoryAllocation: ", 0),
              0u)
        << e.what();
  }
}

TEST(CudaDevices, WithoutDevicesEveryIndexIsRejectedWithTheCount) {
  // probe(0) asks the runtime nothing, so this runs without a GPU.
  CudaDevices none(CudaTopology::probe(0));
  EXPECT_EQ(none.count(), 0);
  EXPECT_FALSE(none.peer_access(0, 1));
  EXPECT_NO_THROW(none.check_index(STRATA_HOST_INDEX, /*allow_host=*/true, "copy_async"));
  try {
    none.check_index(0, false, "allocate");
    ADD_FAILURE() << "no exception";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("allocate: no cuda device 0 (this process sees 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(none.topology().bandwidth(STRATA_HOST_INDEX, 0), CudaTopology::kHostLink);
}

}  // namespace
}  // namespace strata::nccl
