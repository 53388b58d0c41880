#include "mpi_resolver.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_runtime.h"
#include "strata/sdk/backoff.h"
#include "strata/sdk/error.h"
#include "strata/sdk/free_port.h"
#include "strata/sdk/host.h"

namespace strata::mpi {
namespace {

// Waits for a collective on MPI_COMM_WORLD: every rank resolves at start-up,
// but one that never does must give an error, not a hang. A request given up
// on stays pending, so MPI is then never finalised (MpiRuntime).
void wait_for(MPI_Request& request, int64_t deadline_ns, const char* what) {
  sdk::Backoff backoff;
  for (;;) {
    int flag = 0;
    {
      auto lock = MpiRuntime::instance().serialize();
      ErrorsReturn errors(MPI_COMM_WORLD);
      check_mpi(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), what);
    }
    if (flag != 0) return;
    if (sdk::Host::now_ns() >= deadline_ns) {
      MpiRuntime::instance().note_abandoned(what);
      throw sdk::Error(STRATA_TIMED_OUT,
                       std::string("mpi resolver: ") + what +
                           " did not complete: some rank of MPI_COMM_WORLD never reached "
                           "cluster resolution (it died, hangs, or does not use Strata)");
    }
    backoff.pause();
  }
}

}  // namespace

sdk::PortReservation reserve_store_port() {
  std::string error;
  sdk::PortReservation reserved =
      sdk::PortReservation::make(sdk::PortReservation::Scope::kAnyAddress, error);
  if (!reserved.valid()) {
    throw sdk::Error(STRATA_UNAVAILABLE, "no free TCP port for the rendezvous store: " + error);
  }
  return reserved;
}

MpiResolver::MpiResolver(std::chrono::nanoseconds timeout, std::shared_ptr<void> registration)
    : Resolver("mpi",
               "a job started by mpirun or a PMIx/PMI launcher: one worker per rank of "
               "MPI_COMM_WORLD, rank 0 hosting the rendezvous store"),
      timeout_(timeout),
      registration_(std::move(registration)) {}

void MpiResolver::resolve(sdk::ClusterSink& sink) {
  if (!detect_launcher().present) {
    throw sdk::NotSupported("not launched by mpirun: no OMPI_COMM_WORLD_SIZE/PMIX_RANK/PMI_SIZE");
  }
  MpiRuntime& runtime = MpiRuntime::instance();
  runtime.ensure_initialized();
  const int64_t deadline = sdk::Host::now_ns() + timeout_.count();
  // Each rank picks a port free on its own host: addresses must differ
  // (ClusterSpec refuses two tasks on one address), and rank 0's is where
  // core hosts the store. Fixed-size slots keep it one MPI_Iallgather.
  constexpr int kSlot = MPI_MAX_PROCESSOR_NAME + 16;
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  char mine[kSlot] = {0};
  std::vector<char> all;
  int rank = 0;
  int size = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  // Held until every rank has announced its address: each rank binds its
  // port before it joins the allgather, so ranks on one host cannot draw
  // the same port (ClusterSpec refuses two tasks on one address).
  sdk::PortReservation port;
  {
    auto lock = runtime.serialize();
    ErrorsReturn errors(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int length = 0;
    check_mpi(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
    port = reserve_store_port();
    const std::string address = std::string(name) + ":" + std::to_string(port.port());
    std::memcpy(mine, address.c_str(), std::min(address.size(), size_t{kSlot - 1}));
    all.resize(static_cast<size_t>(size) * kSlot);
    check_mpi(MPI_Iallgather(mine, kSlot, MPI_CHAR, all.data(), kSlot, MPI_CHAR, MPI_COMM_WORLD,
                             &request),
              "MPI_Iallgather of addresses");
  }
  wait_for(request, deadline, "MPI_Iallgather of every rank's host:port");
  for (int r = 0; r < size; ++r) {
    const char* slot = all.data() + static_cast<size_t>(r) * kSlot;
    sink.add_task("worker", r, std::string(slot, strnlen(slot, kSlot)));
  }
  sink.set_self("worker", rank);
}

}  // namespace strata::mpi
