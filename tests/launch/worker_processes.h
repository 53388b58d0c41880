// Worker processes of one job on this machine, for the launch tests: each
// runs all_reduce_stream with its place in TF_CONFIG (workers only, so
// worker 0 is the chief and hosts the TCP store at its address), the job
// token in STRATA_JOB_TOKEN, and its stdout and stderr in a log file. Every
// wait is bounded; whatever still runs when the object goes is killed.
#ifndef STRATA_TESTS_LAUNCH_WORKER_PROCESSES_H_
#define STRATA_TESTS_LAUNCH_WORKER_PROCESSES_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace strata::testing {

class WorkerProcesses {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts `count` workers of `program`, each with `args` and, besides
  // this process's environment, `extra_env` ("NAME=value").
  WorkerProcesses(const std::string& program, int count, const std::vector<std::string>& args,
                  const std::string& token, const std::vector<std::string>& extra_env = {});
  ~WorkerProcesses();  // SIGKILLs and reaps any still running; removes the logs
  WorkerProcesses(const WorkerProcesses&) = delete;
  WorkerProcesses& operator=(const WorkerProcesses&) = delete;

  bool started() const { return started_; }
  pid_t pid(int i) const { return workers_[static_cast<size_t>(i)].pid; }
  std::string address(int i) const { return addresses_[static_cast<size_t>(i)]; }
  std::string log(int i) const;

  // When worker i's log first contained `text`, polled until `bound`.
  std::optional<Clock::time_point> wait_for_log(int i, const std::string& text,
                                                std::chrono::milliseconds bound);
  // When worker i was seen stopped (SIGSTOP), polled until `bound`.
  std::optional<Clock::time_point> wait_stopped(int i, std::chrono::milliseconds bound);
  // Worker i's wait status once it ended, polled until `bound`.
  std::optional<int> wait_exit(int i, std::chrono::milliseconds bound);
  void kill(int i, int signal);

 private:
  struct Worker {
    pid_t pid = -1;
    std::string log;
    bool reaped = false;
  };
  std::vector<Worker> workers_;
  std::vector<std::string> addresses_;
  bool started_ = false;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_LAUNCH_WORKER_PROCESSES_H_
