// The NCCL communicators behind one Strata team, as this process sees it:
// one per local device, NCCL rank = the replica's global rank.
//
// Communicators are non-blocking (ncclConfig_t.blocking = 0): creation and
// every collective return at once and are polled through
// ncclCommGetAsyncError, so nothing waits past core's deadline — a blocking
// communicator can hang inside ncclGroupEnd while a dead peer never
// connects. On a deadline or an error every communicator is aborted
// (ncclCommAbort, which does not wait for peers) and the team is broken.
//
// One process, several GPUs: the unique id is made here and every
// communicator is initialised in one group (ncclCommInitAll's recipe, with
// the non-blocking config it cannot take). Several processes: process rank 0
// makes the id and passes it through the team's store.
#ifndef STRATA_PLUGINS_NCCL_NCCL_COMMS_H_
#define STRATA_PLUGINS_NCCL_NCCL_COMMS_H_

#include <nccl.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_devices.h"
#include "strata/abi/algorithm.h"

namespace strata::nccl {

class NcclComms {
 public:
  // Builds the communicators; may block until team.deadline_ns. Throws
  // sdk::Error (TIMED_OUT naming this process's ranks, or NCCL's error).
  NcclComms(std::shared_ptr<CudaDevices> devices, const strata_team_desc_t& team);
  // Finalizes and destroys healthy communicators (bounded), nothing more
  // for aborted ones.
  ~NcclComms();
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;

  size_t size() const { return comms_.size(); }
  ncclComm_t comm(size_t i) const { return comms_[i]; }
  int device(size_t i) const { return devices_of_[i]; }
  int rank(size_t i) const { return first_rank_ + static_cast<int>(i); }
  CudaDevices& cuda() { return *cuda_; }

  // True when no communicator has work being set up (after a non-blocking
  // call returned ncclInProgress). Throws, after aborting every
  // communicator, when one reports an asynchronous error (a dead peer).
  bool ready();

  // ncclCommAbort on every communicator; later calls fail. Idempotent.
  void abort(const std::string& why) noexcept;
  bool broken() const { return broken_.load(std::memory_order_acquire); }
  const std::string& broken_why() const { return broken_why_; }

 private:
  void init(const strata_team_desc_t& team);
  void wait_ready(int64_t deadline_ns, const std::string& what);

  std::shared_ptr<CudaDevices> cuda_;
  std::vector<int> devices_of_;
  std::vector<ncclComm_t> comms_;
  int first_rank_ = 0;
  int nranks_ = 0;
  std::atomic<bool> broken_{false};
  std::string broken_why_;
};

// Every algorithm of the plugin gets its own team_create for one team; they
// share the communicators (one NCCL setup per team, not five). One registry
// per registration of the plugin, so two Runtimes never share.
class CommRegistry {
 public:
  std::shared_ptr<NcclComms> get(const std::shared_ptr<CudaDevices>& devices,
                                 const strata_team_desc_t& team);

 private:
  // (store, team id, process rank): a team as one process sees it. Tests
  // that stand in for several processes with threads differ in the rank.
  using Key = std::tuple<const void*, uint64_t, int>;
  struct Entry {
    std::mutex build;  // per team, so standing-in threads build in parallel
    std::weak_ptr<NcclComms> comms;
  };
  std::mutex mu_;
  std::map<Key, std::shared_ptr<Entry>> entries_;
};

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_NCCL_COMMS_H_
