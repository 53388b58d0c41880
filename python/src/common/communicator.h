// What Python's strata.Communicator is: one process's collectives over a
// JobTeam — local devices of this process (strata.local()), or this
// process's place in a multi-process job (strata.join(); the torch module's
// communicator_from_store()). Both compiled modules link it; pybind11's
// shared internals make a Communicator made by one usable from the other.
#ifndef STRATA_PYTHON_SRC_COMMON_COMMUNICATOR_H_
#define STRATA_PYTHON_SRC_COMMON_COMMUNICATOR_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/cluster/job_team.h"
#include "core/runtime/runtime.h"

namespace strata::python {

class Communicator {
 public:
  // A team of this process's devices alone ("cpu:0", "cpu:1"; empty: the
  // config's strategy.devices, else cpu:0).
  static StatusOr<std::shared_ptr<Communicator>> local(std::shared_ptr<Runtime> runtime,
                                                       std::vector<std::string> devices,
                                                       CommunicationOptions options);
  // This process's place in the job cluster.resolver finds (TF_CONFIG, Slurm,
  // mpirun, strata launch), meeting through the job's store.
  static StatusOr<std::shared_ptr<Communicator>> join(std::shared_ptr<Runtime> runtime,
                                                      std::vector<std::string> devices,
                                                      CommunicationOptions options);
  // The same in a job a resolver object already described
  // (strata.distribute.cluster_resolver: torchrun's variables, a spec given).
  static StatusOr<std::shared_ptr<Communicator>> join(std::shared_ptr<Runtime> runtime,
                                                      ClusterSpec cluster,
                                                      std::vector<std::string> devices,
                                                      CommunicationOptions options);
  Communicator(std::shared_ptr<Runtime> runtime, std::unique_ptr<JobTeam> team);

  // The team, held for the duration of one call, so close() during a call
  // tears it down once the call returns. FAILED_PRECONDITION after close().
  StatusOr<std::shared_ptr<JobTeam>> team() const;
  // Leaves the job (peers do not report this process dead) and releases the
  // team; later calls fail. Idempotent.
  void close();

  int rank() const { return rank_; }
  int world_size() const { return world_; }
  int local_count() const { return static_cast<int>(devices_.size()); }
  int replica_count() const { return world_ * local_count(); }
  const std::vector<strata_device_t>& devices() const { return devices_; }
  std::vector<std::string> device_names() const;
  Runtime& runtime() const { return *runtime_; }
  // "process 0 of 2, cpu:0 .. cpu:1"
  std::string describe() const;

 private:
  std::shared_ptr<Runtime> runtime_;
  std::vector<strata_device_t> devices_;
  int rank_ = 0;
  int world_ = 1;
  mutable std::mutex mu_;
  std::shared_ptr<JobTeam> team_;  // null once closed
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_COMMON_COMMUNICATOR_H_
