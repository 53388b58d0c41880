// The communicator behind a Strata team, and how it is built.
//
// Every algorithm of this plugin gets its own team_create call for the same
// team; they share one communicator (keyed by the team's store and id), so
// a team costs one MPI rendezvous however many collectives it uses. Calls on
// one team are serialised by core, so sharing needs no locking beyond the
// registry's.
#ifndef STRATA_PLUGINS_MPI_MPI_TEAM_H_
#define STRATA_PLUGINS_MPI_MPI_TEAM_H_

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "strata/abi/algorithm.h"
#include "strata/sdk/algorithm.h"

namespace strata::mpi {

struct Step;  // p2p_schedule.h

class Comm {
 public:
  // Takes ownership of `handle`; `how` says how it was built, for messages.
  Comm(MPI_Comm handle, std::string how);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  MPI_Comm handle() const { return handle_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& how() const { return how_; }

  // An aborted call left requests pending that will never complete: the
  // communicator (and the scratch those requests may write) is never used,
  // nor freed, again.
  void abandon(const std::string& why);
  bool abandoned() const { return abandoned_.load(std::memory_order_acquire); }
  const std::string& abandoned_why() const { return abandoned_why_; }

  // At least `bytes` of memory kept between calls; calls on one team never
  // overlap, so one buffer serves all of them.
  std::byte* scratch(size_t bytes);
  // The current call's all_reduce plan (p2p_schedule.h), kept for its capacity.
  std::vector<Step>& plan() { return plan_; }

  // The largest payload every link of the team sends eagerly (0: unknown),
  // the same on every rank: team_eager_bytes() of the announcements.
  uint64_t eager_bytes() const { return eager_bytes_; }
  void set_eager_bytes(uint64_t bytes) { eager_bytes_ = bytes; }

  // More of the team's processes on this host than CPUs this process may
  // run on: waiting ranks must yield early (MpiOperation::wait).
  bool shares_cores() const { return shares_cores_; }
  void set_shares_cores(bool shares) { shares_cores_ = shares; }

 private:
  MPI_Comm handle_;
  int rank_ = 0;
  int size_ = 0;
  std::string how_;
  std::atomic<bool> abandoned_{false};
  std::string abandoned_why_;
  std::unique_ptr<std::byte[]> scratch_;
  size_t scratch_bytes_ = 0;
  std::vector<Step> plan_;
  uint64_t eager_bytes_ = 0;
  bool shares_cores_ = true;  // until team creation knows better
};

class MpiTeam final : public sdk::TeamState {
 public:
  // Builds the team's communicator, or shares the one another algorithm
  // built. May block until team.deadline_ns; throws sdk::Error.
  explicit MpiTeam(const strata_team_desc_t& team);
  ~MpiTeam() override;

  Comm& comm() { return *comm_; }

 private:
  // (store, team id, process rank): a team as this process sees it.
  std::tuple<const void*, uint64_t, int> key_;
  std::shared_ptr<Comm> comm_;
};

// What each process tells the others before any MPI call that cannot time
// out: its place in MPI_COMM_WORLD (-1 when not launched by an MPI
// launcher) and the world's job id, plus host and pid for messages.
struct Announcement {
  int world_rank = -1;
  std::string job;
  std::string host;
  long pid = 0;
  uint64_t shm_eager_limit = 0;  // shared_memory_eager_limit(), 0 when unknown

  std::string encode() const;
  static Announcement decode(const std::string& text);
};

// The payload every pair of the team sends eagerly, decided alike on every
// rank from the same announcements: on one host, the smallest announced
// shared-memory limit less its headers; across hosts, or when a process
// could not read its limit, 0 (the network transports' limits are not read,
// and the plans then take no eager rule).
uint64_t team_eager_bytes(const std::vector<Announcement>& peers);

// Whether the team's processes on `host` outnumber `cpus`, the CPUs one of
// them may run on (its affinity mask). Other jobs' processes are not seen.
bool team_shares_cores(const std::vector<Announcement>& peers, const std::string& host,
                       int cpus);

// Publishes `self` in the team store and waits until every process of the
// team did, until team.deadline_ns. The error names every missing rank.
std::vector<Announcement> announce_all(const strata_team_desc_t& team,
                                       const Announcement& self);

// The two ways to a communicator (mpi_team.cc, mpi_connect.cc).
MPI_Comm comm_from_world(const strata_team_desc_t& team,
                         const std::vector<Announcement>& peers);
MPI_Comm comm_by_connect_accept(const strata_team_desc_t& team);

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_MPI_TEAM_H_
