// `strata launch`'s engine: N local workers with their cluster description,
// their output forwarded line by line, and one failure stopping the rest
// (or, with --tolerate-worker-failures, a worker's failure reported and the
// job going on without it).
// docs/CLI.md ("strata launch") is the contract: environment, exit statuses.
#ifndef STRATA_TOOLS_STRATA_LAUNCHER_H_
#define STRATA_TOOLS_STRATA_LAUNCHER_H_

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "tools/strata/launch_output.h"
#include "tools/strata/tf_config_env.h"

namespace strata::cli {

class OmpiServer;

struct LaunchOptions {
  int workers = 0;
  int ps_tasks = 0;                  // --ps: parameter server tasks, same program
  std::string devices_per_worker;    // "", "2" or "cpu:2"; STRATA_DEVICES_PER_WORKER
  std::string config;                // "" or an absolute path; STRATA_CONFIG
  std::vector<std::string> program;  // PROGRAM ARGS, program first
  std::chrono::nanoseconds grace = std::chrono::seconds(10);
  std::chrono::nanoseconds timeout{0};  // whole job; 0 = none
  bool ompi_server = true;
  bool quiet = false;
  // --tolerate-worker-failures (needs ps_tasks > 0): a failing worker is
  // reported and the job goes on, as long as some worker has not failed;
  // a failing ps task still stops the job.
  bool tolerate_worker_failures = false;
};

// Exit statuses beyond a worker's own.
inline constexpr int kLaunchTimedOut = 124;       // --timeout ran out (as timeout(1))
inline constexpr int kLaunchCannotExecute = 126;  // PROGRAM exists but cannot run
inline constexpr int kLaunchNotFound = 127;       // PROGRAM does not exist

class Launcher {
 public:
  explicit Launcher(LaunchOptions options);
  ~Launcher();
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Runs the whole job and returns the launcher's exit status. Prints the
  // start line (unless quiet) and one summary line on failure, or after
  // tolerated worker failures, to stderr.
  int run();

 private:
  // A worker or ps task (ps tasks follow the workers in workers_).
  struct Worker {
    std::string name = "worker 0";  // "ps 1", for messages
    pid_t pid = -1;  // leader of its own process group
    bool running = false;
    int status = 0;  // waitpid's, once reaped
  };
  enum class StopReason { kNone, kWorkerFailed, kSignal, kTimedOut, kSpawnFailed };
  using Clock = std::chrono::steady_clock;

  Status prepare();
  void start_ompi_server();
  Status start_workers(const std::string& path);
  void supervise();
  void drain_output(Clock::duration limit);
  // Forwards output for up to `timeout_ms`, handling signals that arrive.
  void pump(int timeout_ms);
  std::string start_line() const;
  int count_running() const;
  void on_signal(int sig);
  void reap();
  // True when `index`'s failure is tolerated (it is then reported and
  // recorded in lost_); false when it must stop the job.
  bool tolerate_failure(size_t index);
  // "worker 1 (was killed by signal 9 (SIGKILL))", the tolerated failures.
  std::string describe_lost() const;
  void begin_stop(StopReason reason, int sig);
  void signal_workers(int sig);
  int finish();

  LaunchOptions options_;
  sigset_t original_mask_{};
  int signal_fd_ = -1;
  WorkerEnvironment env_;
  std::vector<int> ports_;
  std::vector<int> ps_ports_;
  OutputForwarder output_;
  std::vector<Worker> workers_;
  std::unique_ptr<OmpiServer> ompi_;
  std::string temp_dir_;

  StopReason stop_ = StopReason::kNone;
  int failed_worker_ = -1;
  std::vector<size_t> lost_;  // workers whose failure was tolerated
  int stop_signal_ = 0;      // the launcher's own signal, for kSignal
  int running_at_stop_ = 0;  // workers still up when the stop began
  int killed_ = 0;           // workers that needed SIGKILL
  std::string killed_why_;   // "still running after the 10 s grace period"
  std::optional<Clock::time_point> term_sent_;
  std::optional<Clock::time_point> kill_sent_;
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_LAUNCHER_H_
