// The shape every operation of this plugin shares: post() starts
// non-blocking MPI work on the team's communicator, test() advances it with
// MPI_Test and never blocks, abort() gives the communicator up.
//
// There is no way to stop a pending MPI collective (MPI_Cancel and
// MPI_Request_free are erroneous on them), so abort() abandons the
// communicator: it is never used or freed again, and MPI_Finalize is
// skipped (README.md, "Dead ranks"). Core's deadline and its store-based
// health check, not this plugin, decide that a peer is dead.
#ifndef STRATA_PLUGINS_MPI_MPI_OPERATION_H_
#define STRATA_PLUGINS_MPI_MPI_OPERATION_H_

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "mpi_runtime.h"
#include "mpi_team.h"
#include "strata/sdk/algorithm.h"

namespace strata::mpi {

class MpiOperation : public sdk::Operation {
 public:
  MpiOperation(Comm& comm, const strata_call_t& call);

  void post() final;
  bool test() final;
  // Polls test() without sleeping while the call advances (see the .cc).
  bool wait(std::chrono::nanoseconds timeout) final;
  void abort() final;

 protected:
  // Posts the MPI calls; runs under the MPI lock. Not called for empty
  // calls (count 0), which complete at once on every rank alike.
  virtual void start() = 0;
  // Advances; true when every request completed. Runs under the MPI lock.
  // The default tests request_.
  virtual bool progress();
  // After completion: MEAN's division, copies out of scratch.
  virtual void finish() {}
  // Changes whenever the call advances (a step of a plan completed); wait()
  // keeps polling hard while it does. Constant for single-request calls.
  virtual uint64_t progress_mark() const { return 0; }

  Comm& comm() { return comm_; }
  const strata_call_desc_t& desc() const { return *call_.desc; }
  uint64_t count() const { return call_.desc->count; }
  size_t elem() const { return elem_; }
  bool in_place() const { return call_.desc->in_place != 0; }
  void* in() const { return call_.inputs[0].data; }
  void* out() const { return call_.outputs[0].data; }
  // The call's root as a rank of the communicator: roots are global replica
  // ranks, and with one replica per process that is the process rank.
  int root() const { return call_.desc->root; }
  int rank() const { return comm_.rank(); }
  int size() const { return comm_.size(); }
  // MPI's int count; decline() guarantees the call fits.
  static int mpi_count(uint64_t n) { return static_cast<int>(n); }

  MPI_Request request_ = MPI_REQUEST_NULL;

 private:
  Comm& comm_;
  strata_call_t call_;
  size_t elem_;
  bool posted_ = false;
  bool done_ = false;
};

// Divides the `count` elements at `data` by `divisor` in place (MEAN after
// a SUM; integers truncate toward zero).
void divide_in_place(strata_dtype_t dtype, void* data, uint64_t count, uint32_t divisor);

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_MPI_OPERATION_H_
