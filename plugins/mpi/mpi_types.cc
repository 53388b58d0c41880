#include "mpi_types.h"

#include <array>

#include "mpi_runtime.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::mpi {
namespace {

// Indices into the user-operator tables: [f16, bf16] x [sum, prod, min, max].
int half_index(strata_dtype_t dtype) {
  if (dtype == STRATA_F16) return 0;
  if (dtype == STRATA_BF16) return 1;
  return -1;
}

int op_index(strata_redop_t redop) {
  switch (redop) {
    case STRATA_SUM:
    case STRATA_MEAN: return 0;
    case STRATA_PROD: return 1;
    case STRATA_MIN: return 2;
    case STRATA_MAX: return 3;
    default: return -1;
  }
}

// MPI hands a user operator only the datatype, which is MPI_UINT16_T for both
// half types, so each (dtype, operator) pair gets its own instantiation.
// Each combination rounds to the half type once, like the host kernels.
template <strata_dtype_t D, strata_redop_t O>
void half_operator(void* in, void* inout, int* len, MPI_Datatype*) {
  const void* const srcs[2] = {inout, in};  // dst may alias srcs[0] only
  sdk::reduce_host(D, O, inout, srcs, 2, static_cast<uint64_t>(*len), 1);
}

constexpr std::array<std::array<UserFunction, 4>, 2> kFunctions{{
    {&half_operator<STRATA_F16, STRATA_SUM>, &half_operator<STRATA_F16, STRATA_PROD>,
     &half_operator<STRATA_F16, STRATA_MIN>, &half_operator<STRATA_F16, STRATA_MAX>},
    {&half_operator<STRATA_BF16, STRATA_SUM>, &half_operator<STRATA_BF16, STRATA_PROD>,
     &half_operator<STRATA_BF16, STRATA_MIN>, &half_operator<STRATA_BF16, STRATA_MAX>},
}};

std::array<std::array<MPI_Op, 4>, 2> g_ops;
bool g_ops_created = false;

}  // namespace

std::optional<std::string> unsupported(strata_dtype_t dtype,
                                       std::optional<strata_redop_t> redop) {
  if (dtype < 0 || dtype >= STRATA_DTYPE_COUNT) {
    return "dtype " + std::to_string(dtype) +
           " is unknown to this build of the mpi plugin (a newer ABI's type?)";
  }
  if (redop && op_index(*redop) < 0) {
    return "reduction operator " + std::to_string(*redop) +
           " is unknown to this build of the mpi plugin (a newer ABI's operator?)";
  }
  return std::nullopt;
}

MPI_Datatype datatype_of(strata_dtype_t dtype) {
  switch (dtype) {
    case STRATA_F32: return MPI_FLOAT;
    case STRATA_F64: return MPI_DOUBLE;
    case STRATA_F16:
    case STRATA_BF16: return MPI_UINT16_T;
    case STRATA_I32: return MPI_INT32_T;
    case STRATA_I64: return MPI_INT64_T;
    case STRATA_U8: return MPI_UINT8_T;
    default:
      throw sdk::NotSupported(*unsupported(dtype, std::nullopt));
  }
}

bool needs_user_op(strata_dtype_t dtype) { return half_index(dtype) >= 0; }

MPI_Op op_of(strata_dtype_t dtype, strata_redop_t redop) {
  if (auto why = unsupported(dtype, redop)) throw sdk::NotSupported(*why);
  if (const int h = half_index(dtype); h >= 0) {
    if (!g_ops_created) {
      throw sdk::Error(STRATA_INTERNAL, "the f16/bf16 MPI operators were not created");
    }
    return g_ops[static_cast<size_t>(h)][static_cast<size_t>(op_index(redop))];
  }
  switch (redop) {
    case STRATA_PROD: return MPI_PROD;
    case STRATA_MIN: return MPI_MIN;
    case STRATA_MAX: return MPI_MAX;
    default: return MPI_SUM;  // SUM, and MEAN before its division
  }
}

UserFunction user_function(strata_dtype_t dtype, strata_redop_t redop) {
  const int h = half_index(dtype);
  const int o = op_index(redop);
  if (h < 0 || o < 0) return nullptr;
  return kFunctions[static_cast<size_t>(h)][static_cast<size_t>(o)];
}

void create_user_ops() {
  if (g_ops_created) return;
  for (size_t h = 0; h < kFunctions.size(); ++h) {
    for (size_t o = 0; o < kFunctions[h].size(); ++o) {
      check_mpi(MPI_Op_create(kFunctions[h][o], /*commute=*/1, &g_ops[h][o]), "MPI_Op_create");
    }
  }
  g_ops_created = true;
}

void free_user_ops() {
  if (!g_ops_created) return;
  for (auto& row : g_ops) {
    for (MPI_Op& op : row) MPI_Op_free(&op);
  }
  g_ops_created = false;
}

}  // namespace strata::mpi
