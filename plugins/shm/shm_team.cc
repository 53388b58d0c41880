#include "shm_team.h"

#include <unistd.h>

#include <cstddef>
#include <map>
#include <sstream>

#include "host_key.h"
#include "peer_liveness.h"
#include "strata/sdk/backoff.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::shm {
namespace {

using Key = std::tuple<const void*, uint64_t, int>;
std::mutex g_registry_mu;
std::map<Key, std::weak_ptr<ShmTeam>> g_registry;

constexpr int64_t kLivenessCheckNs = 5'000'000;
// Values of a segment's `attached` line.
constexpr uint64_t kAttached = 1;
constexpr uint64_t kGaveUp = 2;

std::string segment_key(int rank) { return "shm/segment/" + std::to_string(rank); }

bool parse_entry(const std::string& text, ShmTeam::Entry* e) {
  std::istringstream in(text);
  long long pid = 0;
  return static_cast<bool>(in >> pid >> e->fd >> e->slots >> e->slot_bytes >> e->host) &&
         (e->pid = static_cast<pid_t>(pid)) > 0 && e->fd >= 0 && e->slots > 0 &&
         e->slot_bytes > 0;
}

}  // namespace

ShmTeam::ShmTeam(const strata_team_desc_t& team, const ShmOptions& options)
    : options_(options), rank_(team.process_rank), size_(team.process_count),
      id_(team.team_id), peer_buffers_(team.process_count) {
  // reduce_scatter stages a slice for every rank, each at least one element
  // and starting on its own 64-byte line.
  slot_bytes_ = std::max<uint64_t>(options_.chunk_bytes, 8ull * static_cast<uint64_t>(size_)) +
                64ull * static_cast<uint64_t>(size_);
  // The host's processors, not this process's affinity: mpirun binds each
  // rank to a core of its own, and that is the case where spinning pays.
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  spin_ = options_.spin_for(size_, online);
  oversubscribed_ = size_ > online;
  segments_.resize(static_cast<size_t>(size_));
  pids_.assign(static_cast<size_t>(size_), 0);
  const std::string name = "strata-shm-team" + std::to_string(id_) + "-rank" +
                           std::to_string(rank_);
  try {
    segments_[static_cast<size_t>(rank_)] = Segment::create(name, options_.slots, slot_bytes_);
  } catch (const sdk::Error& e) {
    throw sdk::Error(e.code(), "shm team_create (" + where() + "): " + e.what());
  }
  const Segment& mine = own();
  mine.header().team_id = id_;
  mine.header().rank = static_cast<uint64_t>(rank_);
  pids_[static_cast<size_t>(rank_)] = ::getpid();
  const std::string host = host_key();
  sdk::Host::store_set(team.store, segment_key(rank_),
                       std::to_string(::getpid()) + " " + std::to_string(mine.fd()) + " " +
                           std::to_string(options_.slots) + " " + std::to_string(slot_bytes_) +
                           " " + host);
  // Every entry first, then the mappings: a peer on another host is named as
  // such on every rank, before any rank gives up and exits.
  std::vector<std::string> entries(static_cast<size_t>(size_));
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    try {
      entries[static_cast<size_t>(peer)] =
          sdk::Host::store_get(team.store, segment_key(peer), team.deadline_ns);
    } catch (const sdk::Error& e) {
      throw sdk::Error(e.code(), "shm team_create (" + where() + "): rank " +
                                     std::to_string(peer) +
                                     " never published its segment: " + e.what());
    }
  }
  std::vector<Entry> parsed(static_cast<size_t>(size_));
  for (int peer = 0; peer < size_; ++peer) {
    const auto i = static_cast<size_t>(peer);
    if (peer != rank_) parsed[i] = check_entry(peer, entries[i], host);
    if (peer != rank_) pids_[i] = parsed[i].pid;
  }
  try {
    for (int peer = 0; peer < size_; ++peer) {
      if (peer != rank_) attach(peer, parsed[static_cast<size_t>(peer)]);
    }
    mine.store(Flag::kAttached, kAttached);
    wait_attached(team);
  } catch (const sdk::Error&) {
    // Peers that mapped this segment stop waiting for it, and look for
    // the cause among the other ranks.
    mine.store(Flag::kAttached, kGaveUp);
    throw;
  }
  // Every peer has its own mapping now: without the descriptor nothing but
  // the mappings holds the memory, and they go with the processes.
  segments_[static_cast<size_t>(rank_)].close_fd();
  std::vector<const StagingEstimates*> estimates;
  for (const Segment& segment : segments_) estimates.push_back(&segment.header().staging);
  staging_.emplace(options_.staging, &mine.header().staging, std::move(estimates));
}

ShmTeam::Entry ShmTeam::check_entry(int peer, const std::string& text,
                                    const std::string& own_host) const {
  const std::string who = "shm team_create (" + where() + "): rank " + std::to_string(peer);
  Entry e;
  if (!parse_entry(text, &e)) {
    throw sdk::Error(STRATA_DATA_LOSS, who + " published '" + text +
                                           "', not a shm segment (pid fd slots bytes host)");
  }
  if (e.host != own_host) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     who + " (pid " + std::to_string(e.pid) + ") runs on another host (host key " +
                         e.host + ", this rank's " + own_host +
                         "); shm serves processes on one host, so pick mpi or grpc_ring for "
                         "this team");
  }
  if (e.slots != options_.slots || e.slot_bytes != slot_bytes_) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     who + " uses " + std::to_string(e.slots) + " slots of " +
                         std::to_string(e.slot_bytes) + " bytes and this rank " +
                         std::to_string(options_.slots) + " of " + std::to_string(slot_bytes_) +
                         ": give every rank the same plugins.options.shm (and STRATA_SHM_*)");
  }
  return e;
}

void ShmTeam::attach(int peer, const Entry& e) {
  const std::string who = "shm team_create (" + where() + "): rank " + std::to_string(peer);
  try {
    segments_[static_cast<size_t>(peer)] = Segment::open(e.pid, e.fd, e.slots, e.slot_bytes);
  } catch (const sdk::Error& error) {
    // A segment vanishes when its owner dies, or when it gave up forming the
    // team because another rank died: name the dead one, this peer first.
    if (std::string trouble = peer_trouble(peer, e.pid); !trouble.empty()) {
      throw sdk::Error(STRATA_PEER_FAILED, "shm team_create (" + where() + "): " + trouble +
                                               " before this rank mapped its segment");
    }
    throw_if_a_peer_failed("before this rank mapped every segment");
    throw sdk::Error(error.code(), who + " (pid " + std::to_string(e.pid) +
                                       "): cannot map its segment: " + error.what() +
                                       " (the rank may have given up forming the team; else "
                                       "shm needs every rank to run as the same user, and the "
                                       "processes to be dumpable)");
  }
  const SegmentHeader& h = segments_[static_cast<size_t>(peer)].header();
  if (std::atomic_ref<const uint64_t>(h.magic).load(std::memory_order_acquire) != kSegmentMagic ||
      h.owner_pid != static_cast<uint64_t>(e.pid) || h.team_id != id_ ||
      h.rank != static_cast<uint64_t>(peer)) {
    throw sdk::Error(STRATA_DATA_LOSS, who + ": the segment at /proc/" + std::to_string(e.pid) +
                                           "/fd/" + std::to_string(e.fd) +
                                           " is not that rank's segment of this team");
  }
}

void ShmTeam::throw_if_a_peer_failed(const std::string& when, bool skip_attached) const {
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    if (skip_attached && segment(peer).load(Flag::kAttached) == kAttached) continue;
    if (std::string trouble = peer_trouble(peer, pid(peer)); !trouble.empty()) {
      throw sdk::Error(STRATA_PEER_FAILED,
                       "shm team_create (" + where() + "): " + trouble + " " + when);
    }
  }
}

void ShmTeam::wait_attached(const strata_team_desc_t& team) {
  sdk::Backoff backoff;
  int64_t next_check = sdk::Host::now_ns() + kLivenessCheckNs;
  for (int peer = 0; peer < size_; ++peer) {
    for (;;) {
      const uint64_t state = segment(peer).load(Flag::kAttached);
      if (state == kAttached) break;
      if (state == kGaveUp) {
        // It gave up because a rank failed, attached or not: name that one.
        throw_if_a_peer_failed("before every rank mapped every segment");
        throw sdk::Error(STRATA_PEER_FAILED, "shm team_create (" + where() + "): rank " +
                                             std::to_string(peer) + " (pid " +
                                             std::to_string(pid(peer)) +
                                             ") gave up forming the team (its log says why)");
      }
      const int64_t now = sdk::Host::now_ns();
      if (now >= next_check) {
        next_check = now + kLivenessCheckNs;
        throw_if_a_peer_failed("before every rank mapped every segment", true);
      }
      if (now >= team.deadline_ns) {
        throw sdk::Error(STRATA_TIMED_OUT,
                         "shm team_create (" + where() + "): rank " + std::to_string(peer) +
                             " (pid " + std::to_string(pid(peer)) +
                             ") did not map every segment by the team's deadline");
      }
      backoff.pause();
    }
  }
}

std::string ShmTeam::where() const {
  return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ", team " +
         std::to_string(id_);
}

void ShmTeam::mark_broken(const std::string& why, const LeftTeam& notice) {
  std::lock_guard lock(broken_mu_);
  if (broken_.empty()) broken_ = why.empty() ? "no reason given" : why;
  if (!notice_published_) {
    // Peers waiting on this rank's flags read it (ShmOperation::check_waiting).
    own().give_up(notice);
    notice_published_ = true;
  }
  is_broken_.store(true, std::memory_order_release);
}

void ShmTeam::check_usable() const {
  if (!is_broken_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(broken_mu_);
  if (!broken_.empty()) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     "shm (" + where() + "): an earlier call on this team failed (" + broken_ +
                         "); its flags stopped mid-call, so build a new team");
  }
}

ShmTeamState::ShmTeamState(const strata_team_desc_t& team, const ShmOptions& options)
    : key_(team.store, team.team_id, team.process_rank) {
  {
    std::lock_guard lock(g_registry_mu);
    team_ = g_registry[key_].lock();
    if (team_) return;
  }
  // Built outside the lock: threads standing in for processes (tests) must
  // all reach their rendezvous.
  auto built = std::make_shared<ShmTeam>(team, options);
  std::lock_guard lock(g_registry_mu);
  team_ = g_registry[key_].lock();
  if (!team_) {
    team_ = std::move(built);
    g_registry[key_] = team_;
  }
}

ShmTeamState::~ShmTeamState() {
  team_.reset();
  std::lock_guard lock(g_registry_mu);
  if (auto it = g_registry.find(key_); it != g_registry.end() && it->second.expired()) {
    g_registry.erase(it);
  }
}

}  // namespace strata::shm
