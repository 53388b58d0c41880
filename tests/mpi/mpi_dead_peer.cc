// strata_mpi_dead_peer: a peer dies in the middle of a job, and the survivor
// must get an error naming it — never a hang — with the team then refusing
// further calls. Two processes started by run_singletons.sh (MPI singletons
// joined through ompi-server, where nothing kills the job for us):
//   rank 1 takes part in one all_reduce, then dies without a goodbye;
//   rank 0 calls all_reduce again and must fail within its deadline
//   (PEER_FAILED from core's health check, or TIMED_OUT), and the next call
//   must be refused at once (FAILED_PRECONDITION: the team is broken).
// Exit status 0 when all of that holds.
//   strata_mpi_dead_peer <libstrata_mpi.so> <store, e.g. file:/tmp/x>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/cluster/health_monitor.h"
#include "core/cluster/job_store.h"
#include "core/cluster/resolve.h"
#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"

namespace {

using namespace strata;

int fail(const std::string& what) {
  std::fprintf(stderr, "strata_mpi_dead_peer: %s\n", what.c_str());
  return 1;
}

int run(const char* plugin, const char* store_name) {
  auto runtime = Runtime::create(Config{}, RuntimeOptions{.discover_plugins = false,
                                                          .use_environment = false,
                                                          .plugin_files = {plugin}});
  if (!runtime.ok()) return fail(runtime.status().to_string());
  auto cluster = resolve_cluster((*runtime)->registry(), "simple");
  if (!cluster.ok()) return fail(cluster.status().to_string());
  ClusterConfig config;
  config.store = store_name;
  auto store = open_job_store((*runtime)->registry(), *cluster, config);
  if (!store.ok()) return fail(store.status().to_string());
  const int rank = *cluster->rank();
  HealthMonitor health(**store, rank, cluster->world_size(), std::chrono::milliseconds(500));
  TeamSpec spec;
  spec.local_devices = *(*runtime)->devices("cpu", 1);
  spec.process_rank = rank;
  spec.process_count = cluster->world_size();
  spec.store = store->get();
  spec.team_id = 5;
  spec.health_check = [&health] { return health.check(); };
  auto ops = CollectiveOps::create(*runtime, spec);
  if (!ops.ok()) return fail(ops.status().to_string());

  std::vector<float> data(1024, 1.0f);
  const Buffer buffer{data.data(), DType::kF32, data.size(), spec.local_devices[0]};
  CallOptions call;
  call.algorithm = "mpi/all_reduce/native";
  call.timeout = std::chrono::seconds(20);
  if (Status s = (*ops)->all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kSum, call); !s.ok()) {
    return fail("the first all_reduce, with every rank alive, failed: " + s.to_string());
  }
  if (rank == 1) _exit(0);  // dies: no goodbye, no MPI_Finalize, no store cleanup

  const auto start = std::chrono::steady_clock::now();
  const Status second = (*ops)->all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kSum, call);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("with rank 1 dead, all_reduce returned after %.1f s: %s\n", took,
              second.to_string().c_str());
  if (second.code() != Code::kPeerFailed && second.code() != Code::kTimedOut) {
    return fail("expected PEER_FAILED or TIMED_OUT");
  }
  if (took > 25) return fail("the call outlived its 20 s deadline");
  const Status third = (*ops)->all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kSum, call);
  std::printf("the next call: %s\n", third.to_string().c_str());
  if (third.code() != Code::kFailedPrecondition) return fail("expected FAILED_PRECONDITION");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: strata_mpi_dead_peer <libstrata_mpi.so> <store>");
  return run(argv[1], argv[2]);
}
