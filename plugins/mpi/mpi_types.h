// Strata's element types and reduction operators in MPI's terms.
//
// Every Strata dtype and operator maps: f32, f64, i32, i64 and u8 onto MPI's
// predefined types and operators; f16 and bf16, which MPI 3.1 (Open MPI 4)
// does not define, travel as MPI_UINT16_T and reduce through user-defined
// operators that compute in float (sdk::reduce_host); MEAN reduces with SUM
// and the plugin divides afterwards (MPI has no mean). Only values this
// build does not know (a newer ABI's dtypes) are declined.
#ifndef STRATA_PLUGINS_MPI_MPI_TYPES_H_
#define STRATA_PLUGINS_MPI_MPI_TYPES_H_

#include <mpi.h>

#include <optional>
#include <string>

#include "strata/abi/types.h"

namespace strata::mpi {

// Why this plugin cannot carry `dtype` (and reduce it with `redop`, for
// reducing ops), or nullopt when it can.
std::optional<std::string> unsupported(strata_dtype_t dtype,
                                       std::optional<strata_redop_t> redop);

// The MPI datatype of one element; f16 and bf16 both give MPI_UINT16_T.
MPI_Datatype datatype_of(strata_dtype_t dtype);

// The operator that reduces `dtype` with `redop`: a predefined one, or for
// f16/bf16 a user-defined one (create_user_ops must have run). MEAN gives
// SUM's operator.
MPI_Op op_of(strata_dtype_t dtype, strata_redop_t redop);

// True when op_of is user-defined, i.e. the reduction runs in this
// library's code.
bool needs_user_op(strata_dtype_t dtype);

// The user-defined operators live from MPI initialisation to finalisation.
void create_user_ops();
void free_user_ops();

// The function behind op_of(dtype, redop) for f16/bf16, callable without
// MPI (unit tests): inout[i] = in[i] (op) inout[i] for *len elements.
using UserFunction = void (*)(void* in, void* inout, int* len, MPI_Datatype* type);
UserFunction user_function(strata_dtype_t dtype, strata_redop_t redop);

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_MPI_TYPES_H_
