#include "mpi_team.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "mpi_runtime.h"
#include "mpi_transport.h"
#include "p2p_schedule.h"  // Step, complete for Comm::plan_
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::mpi {
namespace {

using Key = std::tuple<const void*, uint64_t, int>;

std::mutex g_registry_mu;
std::map<Key, std::weak_ptr<Comm>> g_registry;
// Building communicators one at a time keeps MPI's blocking constructors
// (create_group, connect/accept) from interleaving between teams.
std::mutex g_build_mu;

std::string host_name() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Every rank says who it is and waits for the others (the store has
// deadlines; MPI's communicator constructors do not).
std::vector<Announcement> meet(const strata_team_desc_t& team, const Launcher& launcher) {
  Announcement self;
  self.host = host_name();
  self.pid = static_cast<long>(getpid());
  {
    auto lock = MpiRuntime::instance().serialize();
    self.shm_eager_limit = shared_memory_eager_limit();
    if (launcher.present) {
      MPI_Comm_rank(MPI_COMM_WORLD, &self.world_rank);
      self.job = launcher.job;
    }
  }
  return announce_all(team, self);
}

std::shared_ptr<Comm> build(const strata_team_desc_t& team, const Launcher& launcher,
                            const std::vector<Announcement>& peers) {
  // Every process decides from the same announcements, so all take the same
  // path: the shared MPI_COMM_WORLD when every process is in one world,
  // otherwise connect/accept between singletons.
  bool one_world = true;
  for (const Announcement& a : peers) {
    one_world = one_world && a.world_rank >= 0 && a.job == peers[0].job;
  }
  if (one_world) {
    int world = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    std::vector<bool> used(static_cast<size_t>(world), false);
    for (const Announcement& a : peers) {
      one_world = one_world && a.world_rank < world && !used[static_cast<size_t>(a.world_rank)];
      if (one_world) used[static_cast<size_t>(a.world_rank)] = true;
    }
  }
  if (one_world) {
    auto comm = std::make_shared<Comm>(comm_from_world(team, peers), "a group of MPI_COMM_WORLD");
    comm->set_eager_bytes(team_eager_bytes(peers));
    return comm;
  }
  // Processes of different jobs talk over the network transports (Open
  // MPI's shared-memory transport serves the processes of one job), whose
  // limits are not read: their communicator gets no eager rule.
  if (ompi_server_uri().empty()) {
    throw sdk::NotSupported(
        "the team's processes are not one MPI world (not started by one mpirun: " +
        std::string(launcher.present ? "this process's launcher differs from its peers'"
                                     : "no OMPI_COMM_WORLD_SIZE/PMIX_RANK/PMI_SIZE") +
        ") and no ompi-server is known to connect them (OMPI_MCA_pmix_server_uri is unset). "
        "Run the job under mpirun, or start `ompi-server --no-daemonize --report-uri FILE` and "
        "set OMPI_MCA_pmix_server_uri=file:FILE in every process (`strata launch` does this)");
  }
  return std::make_shared<Comm>(comm_by_connect_accept(team),
                                "MPI_Comm_connect/accept through ompi-server");
}

}  // namespace

std::string Announcement::encode() const {
  std::ostringstream out;
  out << world_rank << '\n' << job << '\n' << host << '\n' << pid << '\n' << shm_eager_limit;
  return out.str();
}

Announcement Announcement::decode(const std::string& text) {
  Announcement a;
  std::istringstream in(text);
  std::string line;
  if (std::getline(in, line)) a.world_rank = std::atoi(line.c_str());
  std::getline(in, a.job);
  std::getline(in, a.host);
  if (std::getline(in, line)) a.pid = std::atol(line.c_str());
  if (std::getline(in, line)) a.shm_eager_limit = std::strtoull(line.c_str(), nullptr, 10);
  return a;
}

uint64_t team_eager_bytes(const std::vector<Announcement>& peers) {
  uint64_t limit = UINT64_MAX;
  for (const Announcement& a : peers) {
    if (a.host != peers.front().host || a.shm_eager_limit <= kEagerHeaderBytes) return 0;
    limit = std::min(limit, a.shm_eager_limit);
  }
  return peers.empty() ? 0 : limit - kEagerHeaderBytes;
}

bool team_shares_cores(const std::vector<Announcement>& peers, const std::string& host,
                       int cpus) {
  const auto here = std::count_if(peers.begin(), peers.end(),
                                  [&](const Announcement& a) { return a.host == host; });
  return here > cpus;
}

std::vector<Announcement> announce_all(const strata_team_desc_t& team,
                                       const Announcement& self) {
  const std::string prefix = "mpi/here/";
  sdk::Host::store_set(team.store, prefix + std::to_string(team.process_rank), self.encode());
  std::vector<Announcement> peers(static_cast<size_t>(team.process_count));
  std::string missing;
  for (int r = 0; r < team.process_count; ++r) {
    // After the first miss, only look: the deadline has passed already.
    const int64_t deadline = missing.empty() ? team.deadline_ns : sdk::Host::now_ns();
    try {
      peers[static_cast<size_t>(r)] =
          Announcement::decode(sdk::Host::store_get(team.store, prefix + std::to_string(r),
                                                    deadline));
    } catch (const sdk::Error& e) {
      if (e.code() != STRATA_TIMED_OUT) throw;
      missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
  }
  if (missing.empty()) return peers;
  std::string present;
  for (int r = 0; r < team.process_count; ++r) {
    const Announcement& a = peers[static_cast<size_t>(r)];
    if (a.pid == 0) continue;
    present += (present.empty() ? "" : ", ") + std::to_string(r) + " (" + a.host + " pid " +
               std::to_string(a.pid) + ")";
  }
  throw sdk::Error(STRATA_TIMED_OUT,
                   "mpi team_create: process rank(s) " + missing + " of " +
                       std::to_string(team.process_count) +
                       " never reached the rendezvous by the team's deadline (present: " +
                       present + "); a missing rank died, hangs, or never created this team");
}

MPI_Comm comm_from_world(const strata_team_desc_t& team,
                         const std::vector<Announcement>& peers) {
  auto lock = MpiRuntime::instance().serialize();
  ErrorsReturn errors(MPI_COMM_WORLD);
  std::vector<int> ranks;
  for (const Announcement& a : peers) ranks.push_back(a.world_rank);
  MPI_Group world_group = MPI_GROUP_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(MPI_COMM_WORLD, &world_group), "MPI_Comm_group");
  const int rc = MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
  MPI_Group_free(&world_group);
  check_mpi(rc, "MPI_Group_incl");
  // Only the team's processes take part (unlike MPI_Comm_split over the
  // world), and the group's order is process_rank order. Every rank is
  // known to be alive and on its way here: announce_all saw it.
  MPI_Comm comm = MPI_COMM_NULL;
  const int tag = static_cast<int>(team.team_id % 32768);  // MPI_TAG_UB >= 32767
  const int created = MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &comm);
  MPI_Group_free(&group);
  check_mpi(created, "MPI_Comm_create_group over MPI_COMM_WORLD");
  return comm;
}

Comm::Comm(MPI_Comm handle, std::string how) : handle_(handle), how_(std::move(how)) {
  MpiRuntime::instance().count_comm(+1);
  check_mpi(MPI_Comm_set_errhandler(handle_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  MPI_Comm_rank(handle_, &rank_);
  MPI_Comm_size(handle_, &size_);
}

Comm::~Comm() {
  MpiRuntime& runtime = MpiRuntime::instance();
  runtime.count_comm(-1);
  if (abandoned()) {
    (void)scratch_.release();  // a pending receive may still land there
    return;
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) return;
  try {
    auto lock = runtime.serialize();
    MPI_Comm_free(&handle_);
  } catch (const std::exception& e) {
    sdk::Host::log(STRATA_LOG_WARNING, std::string("leaking an MPI communicator: ") + e.what());
  }
}

void Comm::abandon(const std::string& why) {
  if (abandoned_.exchange(true, std::memory_order_acq_rel)) return;
  abandoned_why_ = why;
  MpiRuntime::instance().note_abandoned(why);
}

std::byte* Comm::scratch(size_t bytes) {
  if (bytes > scratch_bytes_) {
    scratch_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
    scratch_bytes_ = bytes;
  }
  return scratch_.get();
}

MpiTeam::MpiTeam(const strata_team_desc_t& team)
    : key_(team.store, team.team_id, team.process_rank) {
  if (team.process_count < 2 || team.store == nullptr || team.local_count != 1) {
    throw sdk::NotSupported("the mpi plugin serves teams of several processes with one "
                            "replica each (STRATA_SCOPE_CROSS_PROCESS)");
  }
  MpiRuntime::instance().ensure_initialized();
  auto shared = [&] {
    std::lock_guard lock(g_registry_mu);
    comm_ = g_registry[key_].lock();
    return comm_ != nullptr;
  };
  if (shared()) return;
  const Launcher launcher = detect_launcher();
  // Outside the build lock: teams of one process forming at once (threads,
  // or a test standing in for several processes) must all get to announce.
  const std::vector<Announcement> peers = meet(team, launcher);
  std::lock_guard build_lock(g_build_mu);
  if (shared()) return;
  comm_ = build(team, launcher, peers);
  const std::string& here = peers[static_cast<size_t>(team.process_rank)].host;
  comm_->set_shares_cores(team_shares_cores(peers, here, usable_cpus()));
  if (comm_->size() != team.process_count || comm_->rank() != team.process_rank) {
    throw sdk::Error(STRATA_INTERNAL,
                     "the communicator built by " + comm_->how() + " has rank " +
                         std::to_string(comm_->rank()) + " of " + std::to_string(comm_->size()) +
                         ", expected " + std::to_string(team.process_rank) + " of " +
                         std::to_string(team.process_count));
  }
  std::lock_guard lock(g_registry_mu);
  g_registry[key_] = comm_;
}

MpiTeam::~MpiTeam() {
  comm_.reset();
  std::lock_guard lock(g_registry_mu);
  if (auto it = g_registry.find(key_); it != g_registry.end() && it->second.expired()) {
    g_registry.erase(it);
  }
}

}  // namespace strata::mpi
