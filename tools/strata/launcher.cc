#include "tools/strata/launcher.h"

#include <fcntl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/common/units.h"
#include "tools/strata/cli_common.h"
#include "tools/strata/launch_child.h"
#include "tools/strata/launch_ompi_server.h"

namespace strata::cli {
namespace {

// After the last worker exits, how long output still in flight (a child a
// worker left behind, holding its pipe) may take before it is cut off.
constexpr auto kOutputLinger = std::chrono::seconds(1);

std::string plural(int n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// Quoted only where a shell would need it, so the start line can be pasted.
std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string::npos) {
    return arg;
  }
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

Launcher::Launcher(LaunchOptions options) : options_(std::move(options)) {}

Launcher::~Launcher() {
  ompi_.reset();
  if (signal_fd_ >= 0) ::close(signal_fd_);
  if (!temp_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir_, ignored);
  }
}

Status Launcher::prepare() {
  // Children's pipes must never land on 0-2, or dup2 onto them would be
  // a no-op that keeps close-on-exec; fill any closed standard fd.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0 && ::open("/dev/null", O_RDWR) < 0) {
      return UnavailableError("standard fd " + std::to_string(fd) +
                              " is closed and /dev/null "
                              "cannot be opened: " +
                              std::strerror(errno));
    }
  }
  // Signals arrive through a signalfd read in the poll loop, so handling
  // them needs no async-signal-safe juggling. The children get the mask
  // the launcher started with.
  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, sig);
  if (::pthread_sigmask(SIG_BLOCK, &handled, &original_mask_) != 0) {
    return InternalError("cannot block SIGCHLD/SIGINT/SIGTERM/SIGHUP in the launcher");
  }
  signal_fd_ = ::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd_ < 0) return InternalError(std::string("signalfd: ") + std::strerror(errno));
  // A reader of our stdout that goes away (| head) must not kill the
  // launcher before it has stopped the workers.
  ::signal(SIGPIPE, SIG_IGN);

  STRATA_ASSIGN_OR_RETURN(const std::string token, new_job_token());
  // One port per task, and one for torch's env:// rendezvous (the last).
  STRATA_ASSIGN_OR_RETURN(std::vector<int> ports,
                          pick_loopback_ports(options_.workers + options_.ps_tasks + 1));
  ports_.assign(ports.begin(), ports.begin() + options_.workers);
  ps_ports_.assign(ports.begin() + options_.workers, ports.end() - 1);
  env_.set("STRATA_JOB_TOKEN", token);
  // torch.distributed's env:// variables, so a torch program (with the
  // "strata" backend or any other) runs under strata launch unchanged;
  // RANK and LOCAL_RANK are each worker's (start_workers).
  env_.set("MASTER_ADDR", "127.0.0.1");
  env_.set("MASTER_PORT", std::to_string(ports.back()));
  env_.set("WORLD_SIZE", std::to_string(options_.workers));
  env_.set("LOCAL_WORLD_SIZE", std::to_string(options_.workers));
  if (!options_.devices_per_worker.empty()) {
    env_.set("STRATA_DEVICES_PER_WORKER", options_.devices_per_worker);
  }
  if (!options_.config.empty()) env_.set("STRATA_CONFIG", options_.config);
  return Status::Ok();
}

void Launcher::start_ompi_server() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/strata-launch-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    launch_message("warning: cannot create " + templ + " for ompi-server's URI file (" +
                   std::strerror(errno) + "); going on without ompi-server");
    return;
  }
  temp_dir_ = templ;
  auto server = OmpiServer::start(temp_dir_ + "/ompi-server.uri", env_, original_mask_);
  if (!server.ok()) {
    launch_message("warning: " + server.status().to_string() + "; going on without ompi-server");
    return;
  }
  if (*server == nullptr) return;  // not installed: logged at debug level
  ompi_ = std::move(*server);
  output_.add(ompi_->child().out_fd, "[ompi-server] ", STDERR_FILENO);
  output_.add(ompi_->child().err_fd, "[ompi-server] ", STDERR_FILENO);
  const auto deadline = Clock::now() + OmpiServer::kStartTimeout;
  std::string problem;
  while (problem.empty() && !ompi_->uri_ready() && stop_ == StopReason::kNone) {
    if (ompi_->has_exited()) problem = "ompi-server " + ompi_->exit_description();
    if (Clock::now() >= deadline) problem = "ompi-server wrote no URI file within 10 s";
    if (problem.empty()) pump(20);
  }
  if (problem.empty()) {
    for (const auto& [name, value] : ompi_->worker_variables()) env_.set(name, value);
    return;
  }
  if (stop_ == StopReason::kNone) {
    launch_message("warning: " + problem +
                   "; going on without it (workers get no "
                   "OMPI_MCA_pmix_server_uri)");
  }
  ompi_->stop();
}

Status Launcher::start_workers(const std::string& path) {
  // Workers first (worker 0 may host the job's store), then ps tasks;
  // parameter server clients retry until their ps listens.
  for (int k = 0; k < options_.workers + options_.ps_tasks; ++k) {
    const bool is_ps = k >= options_.workers;
    const int i = is_ps ? k - options_.workers : k;
    const std::string type = is_ps ? "ps" : "worker";
    Worker& w = workers_[static_cast<size_t>(k)];
    w.name = type + " " + std::to_string(i);
    SpawnRequest request;
    request.what = w.name;
    request.path = path;
    request.argv = options_.program;
    std::map<std::string, std::string> own = {
        {"TF_CONFIG", tf_config_text(ports_, ps_ports_, type, i)}};
    if (!is_ps) own.insert({{"RANK", std::to_string(i)}, {"LOCAL_RANK", std::to_string(i)}});
    request.env = env_.block(own);
    request.signal_mask = original_mask_;
    StatusOr<SpawnedChild> child = spawn_child(request);
    if (!child.ok()) return child.status();
    w.pid = child->pid;
    w.running = true;
    const std::string prefix = "[" + type + "-" + std::to_string(i) + "] ";
    output_.add(child->out_fd, prefix, STDOUT_FILENO);
    output_.add(child->err_fd, prefix, STDERR_FILENO);
  }
  return Status::Ok();
}

// "launching 2 workers x 2 cpu devices: ./train --steps 10"
std::string Launcher::start_line() const {
  std::string line = "launching " + plural(options_.workers, "worker");
  if (options_.ps_tasks > 0) line += " and " + plural(options_.ps_tasks, "ps task");
  const std::string& d = options_.devices_per_worker;
  if (!d.empty()) {
    const size_t colon = d.find(':');
    const std::string type = colon == std::string::npos ? "" : d.substr(0, colon) + " ";
    line += " x " + plural(std::stoi(d.substr(colon == std::string::npos ? 0 : colon + 1)),
                           type + "device");
  }
  line += ":";
  for (const std::string& a : options_.program) line += " " + shell_quoted(a);
  return line;
}

int Launcher::run() {
  workers_.resize(static_cast<size_t>(options_.workers + options_.ps_tasks));
  StatusOr<std::string> path = find_program(options_.program.front());
  if (!path.ok()) {
    launch_message(path.status().message());
    return path.status().code() == Code::kNotFound ? kLaunchNotFound : kLaunchCannotExecute;
  }
  if (Status s = prepare(); !s.ok()) {
    launch_message(s.to_string());
    return kExitFailure;
  }
  if (options_.ompi_server) start_ompi_server();
  if (stop_ == StopReason::kNone) {
    if (!options_.quiet) write_fully(STDERR_FILENO, start_line() + "\n");
    if (Status s = start_workers(*path); !s.ok()) {
      launch_message(s.to_string());
      begin_stop(StopReason::kSpawnFailed, SIGTERM);
    }
    supervise();
  }
  return finish();
}

int Launcher::finish() {
  if (ompi_) ompi_->stop();
  drain_output(kOutputLinger);
  // Nothing the launch started outlives it: what the workers left in their
  // process groups goes now, and only then are the leaders reaped.
  signal_workers(SIGKILL);
  drain_output(kOutputLinger);
  output_.close_all();
  for (Worker& w : workers_) {
    int status = 0;
    if (w.pid > 0) ::waitpid(w.pid, &status, w.running ? WNOHANG : 0);
  }

  const std::string stopped =
      running_at_stop_ == 0
          ? ""
          : "; stopped " + plural(running_at_stop_, "running worker") +
                (killed_ == 0 ? "" : " (" + std::to_string(killed_) + " " + killed_why_ + ")");
  const std::string lost = lost_.empty() ? "" : "; lost earlier: " + describe_lost();
  switch (stop_) {
    case StopReason::kNone:
      if (!lost_.empty()) {
        launch_message("lost " + std::to_string(lost_.size()) + " of " +
                       plural(options_.workers, "worker") + ": " + describe_lost() +
                       "; every other task finished (--tolerate-worker-failures)");
      }
      return kExitOk;
    case StopReason::kWorkerFailed: {
      const int status = workers_[static_cast<size_t>(failed_worker_)].status;
      launch_message(workers_[static_cast<size_t>(failed_worker_)].name + " " +
                     describe_wait_status(status) + stopped + lost);
      return exit_code_of(status);
    }
    case StopReason::kSignal:
      launch_message("received " + signal_name(stop_signal_) + "; forwarded it to every worker" +
                     stopped + lost);
      return 128 + stop_signal_;
    case StopReason::kTimedOut:
      launch_message("timed out after " + format_duration(options_.timeout) + " (--timeout)" +
                     stopped + lost);
      return kLaunchTimedOut;
    case StopReason::kSpawnFailed:
      return kExitFailure;
  }
  return kExitFailure;
}

std::string Launcher::describe_lost() const {
  std::string text;
  for (size_t i : lost_) {
    text += (text.empty() ? "" : ", ") + workers_[i].name + " (" +
            describe_wait_status(workers_[i].status) + ")";
  }
  return text;
}

}  // namespace strata::cli
