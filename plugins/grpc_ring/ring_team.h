// A team as the ring sees it: this process's server (the stream from the
// left neighbour arrives there), its stream to the right neighbour, the data
// plane the ring's messages travel by (those streams, or a pair of plain TCP
// connections opened after them), scratch memory, and whether an earlier
// failure left the streams unusable.
//
// Every algorithm of the plugin gets its own team_create for a team; they
// share one RingTeam (keyed by the team's store, id and rank), so a team
// costs one pair of connections however many collectives it runs. Calls on
// one team are serialised by core, so sharing needs no lock of its own.
#ifndef STRATA_PLUGINS_GRPC_RING_RING_TEAM_H_
#define STRATA_PLUGINS_GRPC_RING_RING_TEAM_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "data_plane.h"
#include "grpc_ring_options.h"
#include "ring_inbox.h"
#include "ring_link.h"
#include "ring_server.h"
#include "strata/abi/algorithm.h"
#include "strata/sdk/algorithm.h"

namespace strata::grpc_ring {

class RingTeam {
 public:
  // Loads the job token, listens, publishes this rank's addresses in the
  // team store, connects to the right neighbour and waits until the left
  // one connected (gRPC, then the tcp data plane when it is on) — all by
  // team.deadline_ns. Throws sdk::Error naming the rank that is missing.
  RingTeam(const strata_team_desc_t& team, const GrpcRingOptions& options);
  ~RingTeam();
  RingTeam(const RingTeam&) = delete;
  RingTeam& operator=(const RingTeam&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int left() const { return (rank_ + size_ - 1) % size_; }
  int right() const { return (rank_ + 1) % size_; }
  uint64_t id() const { return id_; }
  const GrpcRingOptions& options() const { return options_; }
  // "rank 1 of 4, team 7": the prefix of every message about this team.
  std::string where() const;

  Signal& signal() { return signal_; }
  Inbox& inbox() { return *inbox_; }
  RingLink& link() { return *link_; }
  // How this team's ring messages travel (option data_plane).
  DataPlane& data_plane() { return *data_plane_; }
  int listen_port() const { return server_->port(); }

  // At least `bytes`, kept between calls (calls on a team never overlap).
  std::byte* scratch(size_t bytes);

  // After a failed or aborted call the streams may hold messages of that
  // call: every later call is refused until the team is rebuilt.
  void mark_broken(const std::string& why);
  void check_usable() const;

 private:
  GrpcRingOptions options_;
  int rank_ = 0;
  int size_ = 0;
  uint64_t id_ = 0;
  Signal signal_;
  std::shared_ptr<Inbox> inbox_;
  std::unique_ptr<RingServer> server_;
  std::unique_ptr<RingLink> link_;
  std::unique_ptr<DataPlane> data_plane_;
  std::unique_ptr<std::byte[]> scratch_;
  size_t scratch_bytes_ = 0;
  mutable std::mutex broken_mu_;
  std::string broken_;
};

// What an algorithm keeps per team: a share of the RingTeam.
class RingTeamState final : public sdk::TeamState {
 public:
  RingTeamState(const strata_team_desc_t& team, const GrpcRingOptions& options);
  ~RingTeamState() override;
  RingTeam& team() { return *team_; }

 private:
  std::tuple<const void*, uint64_t, int> key_;
  std::shared_ptr<RingTeam> team_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_RING_TEAM_H_
