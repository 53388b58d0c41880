// mpi.thread_level.single: a program that initialised MPI itself with plain
// MPI_Init gets MPI_THREAD_SINGLE, so only its main thread may call MPI.
// The plugin then takes no lock around its MPI calls (no other thread can
// be in MPI), which holds only if it refuses every other thread: a
// collective from the main thread works, the same collective from another
// thread fails with FAILED_PRECONDITION saying why, before any message
// leaves, so no rank waits for it. Run under mpirun -np 2; exits non-zero
// with the reason on any rank's failure.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "tools/common/mpi_job_team.h"

namespace strata {
namespace {

Status check(int rank, int world) {
  RuntimeOptions options;
  options.plugin_files = {std::string(STRATA_PLUGIN_DIR) + "/libstrata_mpi.so"};
  options.discover_plugins = false;
  STRATA_ASSIGN_OR_RETURN(auto runtime, Runtime::create(Config{}, options));
  STRATA_ASSIGN_OR_RETURN(MpiJobTeam team, join_mpi_job(runtime, rank, world));
  const auto& devices = team.devices;
  auto& ops = team.ops;
  CallOptions call;
  call.algorithm = "mpi/all_reduce/native";

  std::vector<float> data(2, static_cast<float>(rank + 1));
  const Buffer buffer{data.data(), DType::kF32, data.size(), devices[0]};
  STRATA_RETURN_IF_ERROR(ops->all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kSum, call)
                             .prefixed("from the main thread"));
  const float want = static_cast<float>(world * (world + 1) / 2);
  if (data[0] != want || data[1] != want) {
    return InternalError("main thread: got " + std::to_string(data[0]) + ", expected " +
                         std::to_string(want));
  }

  Status other;
  std::thread([&] {
    other = ops->all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kSum, call);
  }).join();
  if (other.code() != Code::kFailedPrecondition ||
      other.message().find("only from the thread that initialised it") == std::string::npos) {
    return InternalError("another thread: expected FAILED_PRECONDITION naming the thread "
                         "rule, got: " + other.to_string());
  }
  std::printf("rank %d: refused as expected: %s\n", rank, other.message().c_str());
  return Status::Ok();
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int provided = -1;
  MPI_Query_thread(&provided);
  int rank = 0;
  int world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  int failed = 0;
  if (provided != MPI_THREAD_SINGLE) {
    std::fprintf(stderr, "rank %d: MPI_Init gave thread level %d, not SINGLE\n", rank, provided);
    failed = 1;
  } else if (const strata::Status s = strata::check(rank, world); !s.ok()) {
    std::fprintf(stderr, "rank %d: %s\n", rank, s.to_string().c_str());
    failed = 1;
  }
  MPI_Finalize();
  return failed;
}
