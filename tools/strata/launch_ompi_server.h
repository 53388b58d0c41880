// Open MPI's `ompi-server`, started once per `strata launch` so the mpi
// plugin can join workers that mpirun did not start: each worker points
// OMPI_MCA_pmix_server_uri at the server's URI file and the workers find
// one another with MPI_Comm_connect/accept through it.
#ifndef STRATA_TOOLS_STRATA_LAUNCH_OMPI_SERVER_H_
#define STRATA_TOOLS_STRATA_LAUNCH_OMPI_SERVER_H_

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "core/common/status.h"
#include "tools/strata/launch_child.h"
#include "tools/strata/tf_config_env.h"

namespace strata::cli {

class OmpiServer {
 public:
  // How long `strata launch` waits for the URI file before going on
  // without the server (it starts in well under a second when healthy).
  static constexpr std::chrono::seconds kStartTimeout{10};

  // Starts `ompi-server --no-daemonize --report-uri <uri_file>` with its
  // traffic kept on the loopback interface. Returns nullptr, after one
  // debug-level log line, when ompi-server is not on PATH.
  static StatusOr<std::unique_ptr<OmpiServer>> start(const std::string& uri_file,
                                                     const WorkerEnvironment& env,
                                                     const sigset_t& child_mask);

  OmpiServer(const OmpiServer&) = delete;
  OmpiServer& operator=(const OmpiServer&) = delete;
  ~OmpiServer();  // stops it if still running

  // The child's pipes: the launcher forwards them as "[ompi-server] " lines
  // and closes them.
  const SpawnedChild& child() const { return child_; }

  // True once the server has written its whole URI (the file ends with a
  // newline), so workers never read half of it.
  bool uri_ready() const;

  // True (once) when the server has ended; exit_description() says how.
  bool has_exited();
  const std::string& exit_description() const { return exit_description_; }

  // The variables every worker gets while the server runs.
  std::map<std::string, std::string> worker_variables() const;

  // SIGTERM to its process group, up to `grace` for it to go, then SIGKILL.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(2));

 private:
  OmpiServer(SpawnedChild child, std::string uri_file);

  SpawnedChild child_;
  std::string uri_file_;
  bool exited_ = false;  // ended, not yet reaped (its pid stays reserved)
  bool reaped_ = false;
  std::string exit_description_;
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_LAUNCH_OMPI_SERVER_H_
