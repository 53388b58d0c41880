// mpi: collectives across processes over MPI (Open MPI 4 from Debian is the
// reference), one buffer per process, plus the `mpi` cluster resolver.
// README.md explains the communicators, the thread level, symbol
// visibility, dead ranks and performance.
#include <chrono>
#include <memory>

#include "algorithms.h"
#include "mpi_resolver.h"
#include "mpi_runtime.h"
#include "strata/sdk/plugin.h"

namespace {

using namespace strata;

// Kept by the registration: MPI is finalised (if this plugin initialised it)
// when the last registration of the process unloads.
struct Registration {
  Registration() { mpi::MpiRuntime::instance().attach(); }
  ~Registration() { mpi::MpiRuntime::instance().detach(); }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
};

// A resolver has no deadline of its own in the ABI: this bounds how long it
// waits for every rank of the world to arrive.
constexpr std::chrono::seconds kResolveTimeout{120};

void register_mpi(sdk::Registrar& r) {
  // Options are read once, so every rank with the same config decides alike.
  const mpi::MpiOptions options = mpi::MpiOptions::from_host();
  r.add_algorithm(mpi::make_all_reduce_native(options));
  r.add_algorithm(mpi::make_broadcast_native(options));
  r.add_algorithm(mpi::make_all_gather_native(options));
  r.add_algorithm(mpi::make_reduce_scatter_native(options));
  r.add_algorithm(mpi::make_reduce_native(options));
  r.add_algorithm(mpi::make_barrier_native(options));
  // The resolver lives exactly as long as this registration, so it carries
  // the registration's share of MPI's lifetime.
  r.add_resolver(
      std::make_unique<mpi::MpiResolver>(kResolveTimeout, std::make_shared<Registration>()));
}

}  // namespace

STRATA_PLUGIN("mpi", "0.1.0",
              "collectives across processes over MPI (non-blocking), and the mpi resolver",
              register_mpi)
