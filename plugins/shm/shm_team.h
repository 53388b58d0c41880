// A team as shm sees it: this rank's segment, a mapping of every peer's, and
// the count of chunks the team has run (every flag is a count of chunks, so
// a call starts where the previous one ended; calls on a team are
// serialised by core and issued in the same order on every rank).
//
// Every algorithm of the plugin gets its own team_create for a team; they
// share one ShmTeam (keyed by the team's store, id and rank), so a team maps
// one set of segments however many collectives it runs.
#ifndef STRATA_PLUGINS_SHM_SHM_TEAM_H_
#define STRATA_PLUGINS_SHM_SHM_TEAM_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "peer_buffers.h"
#include "segment.h"
#include "shm_options.h"
#include "staging_choice.h"
#include "strata/abi/algorithm.h"
#include "strata/sdk/algorithm.h"

namespace strata::shm {

class ShmTeam {
 public:
  // Creates this rank's segment, publishes it in the team store, maps every
  // peer's and waits until every peer mapped this one — all by
  // team.deadline_ns. Throws sdk::Error naming the rank that is missing,
  // dead, or on another host.
  ShmTeam(const strata_team_desc_t& team, const ShmOptions& options);
  ShmTeam(const ShmTeam&) = delete;
  ShmTeam& operator=(const ShmTeam&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  uint64_t id() const { return id_; }
  const ShmOptions& options() const { return options_; }
  // "rank 1 of 4, team 7": the prefix of every message about this team.
  std::string where() const;

  const Segment& segment(int rank) const { return segments_[static_cast<size_t>(rank)]; }
  const Segment& own() const { return segments_[static_cast<size_t>(rank_)]; }
  pid_t pid(int rank) const { return pids_[static_cast<size_t>(rank)]; }
  // Bytes a slot holds: chunk_bytes, and room to start a slice of at least
  // one element per rank on its own cache line (reduce_scatter).
  uint64_t slot_bytes() const { return slot_bytes_; }
  // How long a wait spins before it sleeps (options().spin_us, or decided
  // from the team size and the host's online processors).
  std::chrono::microseconds spin() const { return spin_; }
  // More ranks than online processors: a spinning wait yields its core to
  // whoever else may run there (a peer it waits for, likely).
  bool oversubscribed() const { return oversubscribed_; }

  // Chunks run by every call before the current one.
  uint64_t chunks_run() const { return chunks_run_; }
  void add_chunks(uint64_t n) { chunks_run_ += n; }
  // The lowest `done` flag of the peers when last read: a lower bound
  // (flags only grow), so a stage that needs no more reads no peer's line.
  uint64_t peers_done_floor() const { return peers_done_floor_; }
  void set_peers_done_floor(uint64_t value) { peers_done_floor_ = value; }
  // How this rank's stages write its slots, call by call.
  StagingChoice& staging() { return *staging_; }
  // This rank's mappings of its peers' shm_host buffers (mapped calls).
  PeerBuffers& peer_buffers() { return peer_buffers_; }

  // A failed or aborted call leaves the flags mid-way: every later call is
  // refused until the team is rebuilt (`why` says so locally), and the
  // first notice is published to the peers (Segment::give_up).
  void mark_broken(const std::string& why, const LeftTeam& notice);
  void check_usable() const;

  // What a rank publishes in the team store: "pid fd slots slot_bytes host".
  struct Entry {
    pid_t pid = 0;
    int fd = -1;
    uint64_t slots = 0;
    uint64_t slot_bytes = 0;
    std::string host;
  };

 private:
  // Parses and checks a peer's entry: same host, same layout.
  Entry check_entry(int peer, const std::string& text, const std::string& own_host) const;
  void attach(int peer, const Entry& entry);
  // Throws PEER_FAILED naming the first peer that died or is stopped.
  // With `skip_attached`, peers that have mapped every segment are left to
  // the first call: a peer that formed and then stopped or died has not
  // stopped this rank from forming, and a survivor's call names it.
  void throw_if_a_peer_failed(const std::string& when, bool skip_attached = false) const;
  void wait_attached(const strata_team_desc_t& team);

  ShmOptions options_;
  int rank_ = 0;
  int size_ = 0;
  uint64_t id_ = 0;
  uint64_t slot_bytes_ = 0;
  std::chrono::microseconds spin_{0};
  bool oversubscribed_ = false;
  std::vector<Segment> segments_;
  std::vector<pid_t> pids_;
  uint64_t chunks_run_ = 0;
  uint64_t peers_done_floor_ = 0;
  std::optional<StagingChoice> staging_;  // once every segment is mapped
  PeerBuffers peer_buffers_;
  mutable std::mutex broken_mu_;
  std::string broken_;
  bool notice_published_ = false;  // under broken_mu_: a notice is written once
  // Set with broken_: every call looks at it, and a lock per call costs
  // a small call a tenth of its time.
  std::atomic<bool> is_broken_{false};
};

// What an algorithm keeps per team: a share of the ShmTeam.
class ShmTeamState final : public sdk::TeamState {
 public:
  ShmTeamState(const strata_team_desc_t& team, const ShmOptions& options);
  ~ShmTeamState() override;
  ShmTeam& team() { return *team_; }

 private:
  std::tuple<const void*, uint64_t, int> key_;
  std::shared_ptr<ShmTeam> team_;
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SHM_TEAM_H_
