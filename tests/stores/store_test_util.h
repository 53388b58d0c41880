// Shared by the store tests: a Runtime whose registry has the built-in store
// types, a core Store over an sdk::Store (sdk_store_adapter.h), a bounded
// poll of a HealthMonitor, temporary directories, and child processes
// running strata_store_peer with bounded waits.
#ifndef STRATA_TESTS_STORES_STORE_TEST_UTIL_H_
#define STRATA_TESTS_STORES_STORE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/health_monitor.h"
#include "core/cluster/store.h"
#include "core/cluster/tcp_store_socket.h"
#include "core/common/clock.h"
#include "core/runtime/runtime.h"
#include "tests/stores/sdk_store_adapter.h"

extern char** environ;

namespace strata::testing {

using namespace std::chrono_literals;

// How the rendezvous and the health monitor name a rank in their messages.
inline std::string worker_name(int rank) { return "worker " + std::to_string(rank); }

inline std::shared_ptr<Runtime> make_runtime() {
  auto rt = Runtime::create({}, RuntimeOptions{.discover_plugins = false,
                                               .use_environment = false,
                                               .plugin_files = {}});
  EXPECT_TRUE(rt.ok()) << rt.status();
  return rt.ok() ? *rt : nullptr;
}

// A fresh one-rank memory store in `rt`'s registry; every call gets its own
// key space (`prefix` + a counter), so tests in one binary never collide.
inline StatusOr<std::unique_ptr<Store>> open_private_memory_store(Runtime& rt,
                                                                  const std::string& prefix) {
  static std::atomic<int> instances{0};
  return open_store(*rt.registry().find_store_type("memory"),
                    prefix + "/" + std::to_string(++instances), 0, 1, deadline_after(1s));
}

// Polls check() until it fails or `bound` passes; the failure, if any.
inline std::optional<Status> first_failure(HealthMonitor& m, std::chrono::milliseconds bound) {
  const Deadline until = deadline_after(bound);
  while (Clock::now() < until) {
    Status s = m.check();
    if (!s.ok()) return s;
    std::this_thread::sleep_for(10ms);
  }
  return std::nullopt;
}

// A loopback port bound but not listening: connecting to it is refused,
// and nobody else can take it while the returned socket lives.
inline tcp_store::Socket reserve_port(int* port) {
  tcp_store::Socket s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(s.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  *port = tcp_store::local_port(s);
  return s;
}

// A fresh directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "strata_stores_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// strata_store_peer in a child process, stdout and stderr to a file. Killed
// if still running when destroyed, so a failing test leaves nothing behind.
class Peer {
 public:
  Peer(const std::vector<std::string>& args, const std::filesystem::path& log,
       const std::vector<std::string>& extra_env = {})
      : log_(log) {
    std::vector<std::string> all{STRATA_STORE_PEER};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings(extra_env);
    for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ADD_FAILURE() << "posix_spawn " << argv[0] << ": " << std::strerror(rc);
      pid_ = -1;
    }
  }
  ~Peer() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  pid_t pid() const { return pid_; }

  // The exit code, or -1 when it did not exit in time (then it is killed).
  int wait(std::chrono::milliseconds timeout = 30s) {
    const auto until = deadline_after(timeout);
    while (pid_ > 0 && !exited_) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (Clock::now() >= until) {
        ADD_FAILURE() << "peer " << pid_ << " did not exit within " << timeout.count()
                      << " ms; output:\n" << output();
        return -1;
      }
      std::this_thread::sleep_for(2ms);
    }
    return code_;
  }

  void kill_now() {
    ::kill(pid_, SIGKILL);
    wait();
  }

  std::string output() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_STORES_STORE_TEST_UTIL_H_
