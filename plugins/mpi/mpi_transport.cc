#include "mpi_transport.h"

#include <mpi.h>

#include <cstring>
#include <string>

namespace strata::mpi {
namespace {

// Reads a bound-free variable of one element, whatever integer type the
// library declares it with.
std::optional<uint64_t> read_index(int index) {
  char name[256];
  char desc[1024];
  int name_len = sizeof name;
  int desc_len = sizeof desc;
  int verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, desc,
                          &desc_len, &bind, &scope) != MPI_SUCCESS ||
      bind != MPI_T_BIND_NO_OBJECT) {
    return std::nullopt;
  }
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) {
    return std::nullopt;
  }
  std::optional<uint64_t> value;
  // Wide enough for any one integer; MPI_T writes `count` elements of `type`.
  unsigned char buffer[16] = {};
  auto as = [&buffer]<typename T>(T) {
    T v;
    std::memcpy(&v, buffer, sizeof v);
    return static_cast<uint64_t>(v);
  };
  if (count == 1 && MPI_T_cvar_read(handle, buffer) == MPI_SUCCESS) {
    if (type == MPI_INT) value = as(int{});
    if (type == MPI_UNSIGNED) value = as(unsigned{});
    if (type == MPI_LONG) value = as(long{});
    if (type == MPI_UNSIGNED_LONG) value = as(0ul);
    if (type == MPI_LONG_LONG) value = as(0ll);
    if (type == MPI_UNSIGNED_LONG_LONG) value = as(0ull);
  }
  MPI_T_cvar_handle_free(&handle);
  return value;
}

}  // namespace

std::optional<uint64_t> read_control_variable(std::string_view name) {
  int provided = 0;
  // MPI_T has its own reference-counted initialisation, independent of
  // MPI_Init: every successful MPI_T_init_thread is paired with a finalize.
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return std::nullopt;
  std::optional<uint64_t> value;
  int index = -1;
  if (MPI_T_cvar_get_index(std::string(name).c_str(), &index) == MPI_SUCCESS) {
    value = read_index(index);
  }
  MPI_T_finalize();
  return value;
}

uint64_t shared_memory_eager_limit() {
  for (const char* name : {"btl_vader_eager_limit", "btl_sm_eager_limit"}) {
    if (auto limit = read_control_variable(name); limit && *limit > 0) return *limit;
  }
  return 0;
}

}  // namespace strata::mpi
