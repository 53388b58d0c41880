// The `mpi` cluster resolver: a job started by mpirun (or any PMIx/PMI
// launcher) is one worker per rank of MPI_COMM_WORLD.
#ifndef STRATA_PLUGINS_MPI_MPI_RESOLVER_H_
#define STRATA_PLUGINS_MPI_MPI_RESOLVER_H_

#include <chrono>
#include <memory>

#include "strata/sdk/free_port.h"
#include "strata/sdk/resolver.h"

namespace strata::mpi {

class MpiResolver final : public sdk::Resolver {
 public:
  // `timeout` bounds the wait for every rank to reach resolve().
  // `registration` is held until core unloads this registration (the
  // plugin's unload hook): its destructor may finalise MPI.
  MpiResolver(std::chrono::nanoseconds timeout, std::shared_ptr<void> registration);

  // Tasks: job "worker", index = world rank, address "<processor name>:<port>"
  // with a port free on that rank's host when it resolved; core hosts the
  // job's TCP rendezvous store at rank 0's (the chief's) address.
  void resolve(sdk::ClusterSink& sink) override;

 private:
  std::chrono::nanoseconds timeout_;
  std::shared_ptr<void> registration_;
};

// A TCP port free on this host, on every address, drawn from outside the
// ephemeral range and held until the reservation is dropped
// (strata/sdk/free_port.h). Throws sdk::Error(UNAVAILABLE).
sdk::PortReservation reserve_store_port();

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_MPI_RESOLVER_H_
