#include "tests/launch/worker_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "strata/sdk/free_port.h"

extern char** environ;

namespace strata::testing {

using namespace std::chrono_literals;

WorkerProcesses::WorkerProcesses(const std::string& program, int count,
                                 const std::vector<std::string>& args,
                                 const std::string& token,
                                 const std::vector<std::string>& extra_env) {
  std::string cluster = "[";
  {
    std::vector<sdk::PortReservation> held;  // distinct ports
    for (int i = 0; i < count; ++i) {
      std::string error;
      held.push_back(sdk::PortReservation::make(sdk::PortReservation::Scope::kLoopback, error));
      if (!held.back().valid()) return;
      addresses_.push_back("127.0.0.1:" + std::to_string(held.back().port()));
      cluster += std::string(i ? "," : "") + "\"" + addresses_.back() + "\"";
    }
  }
  cluster += "]";
  const std::string dir = std::filesystem::temp_directory_path().string();
  workers_.resize(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> env_text;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      if (entry.rfind("TF_CONFIG=", 0) != 0 && entry.rfind("STRATA_JOB_TOKEN", 0) != 0) {
        env_text.push_back(entry);
      }
    }
    env_text.push_back("TF_CONFIG={\"cluster\":{\"worker\":" + cluster +
                       "},\"task\":{\"type\":\"worker\",\"index\":" + std::to_string(i) + "}}");
    env_text.push_back("STRATA_JOB_TOKEN=" + token);
    env_text.insert(env_text.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> env;
    for (auto& s : env_text) env.push_back(s.data());
    env.push_back(nullptr);
    Worker& w = workers_[static_cast<size_t>(i)];
    w.log = dir + "/strata_workers_" + std::to_string(::getpid()) + "_" + std::to_string(i) +
            ".log";
    std::vector<std::string> args_text = {program};
    args_text.insert(args_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : args_text) argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, w.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
    const int rc = posix_spawn(&w.pid, program.c_str(), &actions, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      w.pid = -1;
      return;
    }
  }
  started_ = true;
}

WorkerProcesses::~WorkerProcesses() {
  for (Worker& w : workers_) {
    if (w.pid > 0 && !w.reaped) {
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, nullptr, 0);
    }
    if (!w.log.empty()) std::remove(w.log.c_str());
  }
}

std::string WorkerProcesses::log(int i) const {
  std::ifstream in(workers_[static_cast<size_t>(i)].log);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::optional<WorkerProcesses::Clock::time_point> WorkerProcesses::wait_for_log(
    int i, const std::string& text, std::chrono::milliseconds bound) {
  const auto until = Clock::now() + bound;
  while (Clock::now() < until) {
    if (log(i).find(text) != std::string::npos) return Clock::now();
    std::this_thread::sleep_for(10ms);
  }
  return std::nullopt;
}

std::optional<WorkerProcesses::Clock::time_point> WorkerProcesses::wait_stopped(
    int i, std::chrono::milliseconds bound) {
  Worker& w = workers_[static_cast<size_t>(i)];
  const auto until = Clock::now() + bound;
  while (Clock::now() < until && !w.reaped) {
    int status = 0;
    const pid_t r = ::waitpid(w.pid, &status, WNOHANG | WUNTRACED);
    if (r == w.pid && WIFSTOPPED(status)) return Clock::now();
    if (r == w.pid) w.reaped = true;  // it ended instead
    std::this_thread::sleep_for(5ms);
  }
  return std::nullopt;
}

std::optional<int> WorkerProcesses::wait_exit(int i, std::chrono::milliseconds bound) {
  Worker& w = workers_[static_cast<size_t>(i)];
  const auto until = Clock::now() + bound;
  for (;;) {  // looks once even when `bound` is 0
    int status = 0;
    const pid_t r = ::waitpid(w.pid, &status, WNOHANG);
    if (r == w.pid) {
      w.reaped = true;
      return status;
    }
    if (Clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(10ms);
  }
}

void WorkerProcesses::kill(int i, int signal) {
  const Worker& w = workers_[static_cast<size_t>(i)];
  if (w.pid > 0 && !w.reaped) ::kill(w.pid, signal);
}

}  // namespace strata::testing
