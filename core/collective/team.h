// A team: the replicas that take part in a collective — this process's
// local devices times the processes of the job. It owns each algorithm's
// per-team state, the call sequence, the selection cache, and whether an
// earlier failure left it unusable (a timeout breaks a team until rebuilt).
#ifndef STRATA_CORE_COLLECTIVE_TEAM_H_
#define STRATA_CORE_COLLECTIVE_TEAM_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/cluster/store.h"
#include "core/common/clock.h"
#include "core/common/status.h"
#include "core/plugin/registry.h"
#include "strata/abi/algorithm.h"

namespace strata {

class Runtime;

struct TeamSpec {
  std::vector<strata_device_t> local_devices;  // all of one device type
  int process_rank = 0;
  int process_count = 1;
  Store* store = nullptr;   // required when process_count > 1; not owned
  uint64_t team_id = 0;     // 0: a fresh id, unique within this process
  // Multi-process teams: how long forming the team may take — every process
  // arriving and agreeing on devices per process, plugins and config.
  std::chrono::nanoseconds formation_timeout = std::chrono::seconds(120);
  // Multi-process teams: asked while a call waits on peers; an error
  // (PEER_FAILED naming the dead ranks) ends the call before its deadline.
  std::function<Status()> health_check = nullptr;
  // Names a process rank in messages ("worker 1"); default "rank 1".
  std::function<std::string(int)> describe_process = nullptr;
  // Which host this process is on (host_key.h); empty: local_host_key().
  // Threads that stand in for the processes of several hosts set it.
  std::string host_key = {};
};

// What selection depends on: equal keys always pick the same algorithm.
using SelectionKey = std::tuple<int32_t /*op*/, int32_t /*dtype*/, int32_t /*redop*/,
                                uint64_t /*count*/, int32_t /*root*/, uint32_t /*in_place*/,
                                std::string /*forced algorithm*/>;
// The same key for a lookup, borrowing the forced algorithm's name: a call
// that forces an algorithm by a name longer than the small-string buffer
// would otherwise allocate on every call just to ask the cache.
using SelectionQuery = std::tuple<int32_t, int32_t, int32_t, uint64_t, int32_t, uint32_t,
                                  std::string_view>;

class Team {
 public:
  static StatusOr<std::unique_ptr<Team>> create(std::shared_ptr<Runtime> runtime,
                                                TeamSpec spec);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  const strata_team_desc_t& desc() const { return desc_; }
  const std::vector<strata_device_t>& devices() const { return devices_; }
  uint32_t device_type() const { return devices_.front().type; }
  int local_count() const { return static_cast<int>(devices_.size()); }
  int replica_count() const { return desc_.replica_count; }
  Runtime& runtime() const { return *runtime_; }

  // The algorithm's per-team state, created on first use (team_create may
  // rendezvous with the other processes, which reach it at the same call).
  // In a team of several processes every rank then tells the others how its
  // team_create went (team_state_agreement.cc), so all ranks use the state
  // or none does. NOT_SUPPORTED when team_create declined on any rank: the
  // decline is kept (declined_algorithms()) and the algorithm never tried
  // again on this team. Any other failure, here or on a peer, is returned
  // with the rank it happened on.
  StatusOr<void*> state_for(const AlgorithmEntry& algo, Deadline deadline);
  // Algorithms whose team_create declined this team, with where and why:
  // "at team_create on worker 1: <the plugin's reason>".
  const std::map<const AlgorithmEntry*, std::string>& declined_algorithms() const {
    return declined_;
  }

  uint64_t next_sequence() { return sequence_++; }

  // Hosts, as agreed when the team formed: numbered by their lowest process
  // rank, so rank 0 is on host 0. A team of one process is on one host.
  int host_count() const { return desc_.host_count; }
  int host_of(int process_rank) const {
    return host_of_rank_[static_cast<size_t>(process_rank)];
  }
  // The process ranks on `host`, lowest first (the first is its leader).
  std::vector<int> host_members(int host) const;
  // The most processes any one host has.
  int largest_host() const;

  bool multi_process() const { return desc_.process_count > 1; }
  // The team's own key space of the job store; null for one process.
  Store* store() const { return store_.get(); }
  // The job store itself, for sub-teams (composition); null for one process.
  Store* job_store() const { return job_store_; }
  const TeamSpec& spec() const { return spec_; }
  // OK, or PEER_FAILED naming dead processes (always OK for one process).
  Status check_health() const;
  std::string describe_process(int process_rank) const;

  // OK, or the failure that made this team unusable.
  const Status& broken() const { return broken_; }
  void mark_broken(const Status& cause) { if (broken_.ok()) broken_ = cause; }

  const AlgorithmEntry* cached_selection(const SelectionQuery& query) const;
  void cache_selection(const SelectionKey& key, const AlgorithmEntry* algo);

  // "plugin=x algo=y op=all_reduce rank=0/1 seq=12": the context that every
  // Status from a call on this team carries.
  std::string context(const AlgorithmEntry* algo, std::string_view op,
                      uint64_t sequence) const;

 private:
  Team(std::shared_ptr<Runtime> runtime, TeamSpec spec);

  Status agree_with_peers(Deadline deadline);

  std::shared_ptr<Runtime> runtime_;  // keeps plugins loaded while we live
  std::vector<strata_device_t> devices_;
  TeamSpec spec_;                      // local_devices moved into devices_
  Store* job_store_ = nullptr;
  std::unique_ptr<PrefixStore> store_;
  strata_team_desc_t desc_{};
  std::vector<int> host_of_rank_{0};  // host index of every process rank
  std::map<const AlgorithmEntry*, void*> states_;
  std::map<const AlgorithmEntry*, std::string> declined_;
  std::map<SelectionKey, const AlgorithmEntry*, std::less<>> selections_;
  uint64_t sequence_ = 0;
  Status broken_;
};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_TEAM_H_
