// Joining processes that are each an MPI singleton (started by `strata
// launch` or by hand, not by mpirun) into one communicator.
//
// Rank 0 opens a port and publishes its name in the team store. Ranks join
// one at a time, in rank order: the group built so far accepts on the port
// (collectively), the newcomer connects, both sides merge the
// intercommunicator with the newcomer last. So after the last join each
// process's rank is its process_rank. Open MPI 4 routes connect/accept
// between singletons through an ompi-server (OMPI_MCA_pmix_server_uri);
// mpi_team.cc declines before coming here without one.
//
// MPI_Comm_connect/accept cannot time out. announce_all has already seen
// every rank alive and heading here, and each newcomer waits for its
// predecessor through the store (with the team's deadline), so only a
// process that dies in the middle of this sequence can still stall it.
#include <string>

#include "mpi_runtime.h"
#include "mpi_team.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::mpi {
namespace {

const std::string kPortKey = "mpi/port";
std::string joined_key(int rank) { return "mpi/joined/" + std::to_string(rank); }

// Replaces `group` by the merge of `inter` (whose other side joins), and
// frees what it replaces.
void merge(MPI_Comm& group, MPI_Comm& inter, bool newcomer) {
  MPI_Comm merged = MPI_COMM_NULL;
  const int rc = MPI_Intercomm_merge(inter, newcomer ? 1 : 0, &merged);
  MPI_Comm_free(&inter);
  check_mpi(rc, "MPI_Intercomm_merge");
  if (group != MPI_COMM_NULL) MPI_Comm_free(&group);
  group = merged;
  MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN);
}

}  // namespace

MPI_Comm comm_by_connect_accept(const strata_team_desc_t& team) {
  MpiRuntime& runtime = MpiRuntime::instance();
  const int me = team.process_rank;
  const int n = team.process_count;
  char port[MPI_MAX_PORT_NAME] = {0};
  MPI_Comm group = MPI_COMM_NULL;
  // Frees what was built so far when a step fails (and closes the port).
  struct Cleanup {
    MPI_Comm& group;
    char* port;
    bool open = false;
    ~Cleanup() {
      if (group != MPI_COMM_NULL) MPI_Comm_free(&group);
      if (open) MPI_Close_port(port);
    }
  } cleanup{group, port};

  if (me == 0) {
    {
      auto lock = runtime.serialize();
      ErrorsReturn errors(MPI_COMM_SELF);
      check_mpi(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port");
      cleanup.open = true;
      check_mpi(MPI_Comm_dup(MPI_COMM_SELF, &group), "MPI_Comm_dup(MPI_COMM_SELF)");
      MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN);
    }
    sdk::Host::store_set(team.store, kPortKey, port);
  } else {
    const std::string name = sdk::Host::store_get(team.store, kPortKey, team.deadline_ns);
    if (me > 1) sdk::Host::store_get(team.store, joined_key(me - 1), team.deadline_ns);
    MPI_Comm inter = MPI_COMM_NULL;
    {
      auto lock = runtime.serialize();
      ErrorsReturn errors(MPI_COMM_SELF);
      check_mpi(MPI_Comm_connect(name.c_str(), MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter),
                "MPI_Comm_connect to rank 0's port " + name);
      merge(group, inter, /*newcomer=*/true);
    }
    sdk::Host::store_set(team.store, joined_key(me), "1");
  }
  // Everyone already in accepts each later rank, in order.
  for (int next = me + 1; next < n; ++next) {
    auto lock = runtime.serialize();
    MPI_Comm inter = MPI_COMM_NULL;
    check_mpi(MPI_Comm_accept(port, MPI_INFO_NULL, 0, group, &inter),
              "MPI_Comm_accept of rank " + std::to_string(next));
    merge(group, inter, /*newcomer=*/false);
  }
  MPI_Comm out = group;
  group = MPI_COMM_NULL;  // handed over, not cleaned up
  return out;
}

}  // namespace strata::mpi
