#include "tools/strata/launch_ompi_server.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <utility>

#include "core/common/logging.h"

namespace strata::cli {
namespace {

// Keeps the server's and the workers' Open MPI traffic on loopback: every
// worker is on this machine, and other interfaces may be firewalled or slow.
constexpr const char* kLoopbackOnly = "lo";

}  // namespace

StatusOr<std::unique_ptr<OmpiServer>> OmpiServer::start(const std::string& uri_file,
                                                        const WorkerEnvironment& env,
                                                        const sigset_t& child_mask) {
  StatusOr<std::string> path = find_program("ompi-server");
  if (!path.ok()) {
    STRATA_LOG_DEBUG(
        "strata launch: not starting ompi-server ({}); workers get no "
        "OMPI_MCA_pmix_server_uri",
        path.status().message());
    return std::unique_ptr<OmpiServer>();
  }
  SpawnRequest request;
  request.what = "ompi-server";
  request.path = *path;
  request.argv = {*path, "--no-daemonize", "--report-uri", uri_file};
  request.env = env.block({{"OMPI_MCA_oob_tcp_if_include", kLoopbackOnly}});
  request.signal_mask = child_mask;
  STRATA_ASSIGN_OR_RETURN(SpawnedChild child, spawn_child(request));
  STRATA_LOG_DEBUG("strata launch: started {} (pid {}), URI file {}", *path, child.pid, uri_file);
  return std::unique_ptr<OmpiServer>(new OmpiServer(child, uri_file));
}

OmpiServer::OmpiServer(SpawnedChild child, std::string uri_file)
    : child_(child), uri_file_(std::move(uri_file)) {}

OmpiServer::~OmpiServer() { stop(); }

bool OmpiServer::uri_ready() const {
  const int fd = ::open(uri_file_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];  // a URI is well under 100 bytes
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 1 && buf[n - 1] == '\n';
}

bool OmpiServer::has_exited() {
  if (exited_) return false;
  const std::optional<int> status = peek_exit(child_.pid);
  if (!status) return false;
  exited_ = true;
  exit_description_ = describe_wait_status(*status);
  return true;
}

std::map<std::string, std::string> OmpiServer::worker_variables() const {
  return {{"OMPI_MCA_pmix_server_uri", "file:" + uri_file_},
          {"OMPI_MCA_oob_tcp_if_include", kLoopbackOnly},
          {"OMPI_MCA_btl_tcp_if_include", kLoopbackOnly}};
}

void OmpiServer::stop(std::chrono::milliseconds grace) {
  if (reaped_) return;
  if (!has_exited() && !exited_) ::kill(-child_.pid, SIGTERM);
  // Bounded: grace / 10 ms polls, then SIGKILL, which cannot be refused.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!exited_ && std::chrono::steady_clock::now() < deadline) {
    if (!has_exited()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The group, not just the server: anything it started goes too. Safe
  // even if it ended: unreaped, its group id cannot have been reused.
  ::kill(-child_.pid, SIGKILL);
  int status = 0;
  if (::waitpid(child_.pid, &status, 0) == child_.pid && !exited_) {
    exit_description_ = describe_wait_status(status);
  }
  reaped_ = true;
  STRATA_LOG_DEBUG("strata launch: ompi-server {}", exit_description_);
}

}  // namespace strata::cli
