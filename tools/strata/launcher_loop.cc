// The launcher's event loop: output and signals in one poll(), workers
// watched without being reaped, and the stop sequence (the signal, the
// grace period, SIGKILL) that one failure, a signal or --timeout starts;
// under --tolerate-worker-failures a worker's failure only starts it when
// every worker has failed.
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "core/common/logging.h"
#include "core/common/units.h"
#include "tools/strata/launch_child.h"
#include "tools/strata/launcher.h"

namespace strata::cli {
namespace {

// After SIGKILL, how long to wait for the kernel to end a process (one in
// uninterruptible sleep) before the launcher gives up on it.
constexpr auto kKillWait = std::chrono::seconds(10);
// Poll at least this often, so deadlines are met even without events.
constexpr int kMaxPollMs = 200;

}  // namespace

void Launcher::pump(int timeout_ms) {
  if (!output_.pump(signal_fd_, timeout_ms)) return;
  signalfd_siginfo info{};
  // Bounded by the signals pending, which the kernel coalesces per number.
  while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    on_signal(static_cast<int>(info.ssi_signo));
  }
}

int Launcher::count_running() const {
  return static_cast<int>(
      std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) { return w.running; }));
}

void Launcher::on_signal(int sig) {
  if (sig == SIGCHLD) return;  // reap() runs after every pump
  if (stop_ == StopReason::kNone) {
    begin_stop(StopReason::kSignal, sig);
    return;
  }
  // A second Ctrl-C while workers are still stopping: do not make the
  // user wait out the grace period.
  if (!kill_sent_) {
    killed_ = count_running();
    killed_why_ = "killed at a second " + signal_name(sig);
    signal_workers(SIGKILL);
    kill_sent_ = Clock::now();
  }
}

void Launcher::reap() {
  for (size_t i = 0; i < workers_.size(); ++i) {
    Worker& w = workers_[i];
    if (!w.running) continue;
    const std::optional<int> exited = peek_exit(w.pid);
    if (!exited) continue;
    const int status = *exited;
    w.running = false;
    w.status = status;
    STRATA_LOG_INFO("strata launch: {} (pid {}) {}", w.name, w.pid, describe_wait_status(status));
    const bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (failed && stop_ == StopReason::kNone && !tolerate_failure(i)) {
      failed_worker_ = static_cast<int>(i);
      begin_stop(StopReason::kWorkerFailed, SIGTERM);
    }
  }
}

bool Launcher::tolerate_failure(size_t index) {
  const bool is_worker = index < static_cast<size_t>(options_.workers);
  // The parameter servers re-queue a lost worker's steps for the others;
  // a lost ps takes variables nobody else holds, and with every worker
  // failed nobody is left to run the steps.
  if (!options_.tolerate_worker_failures || !is_worker ||
      lost_.size() + 1 >= static_cast<size_t>(options_.workers)) {
    return false;
  }
  Worker& w = workers_[index];
  lost_.push_back(index);
  launch_message(w.name + " " + describe_wait_status(w.status) +
                 "; the job goes on without it (--tolerate-worker-failures)");
  // What the lost worker started goes now rather than at the job's end:
  // it works for a worker the ps tasks no longer count on. The leader is
  // not reaped, so its group id cannot name a stranger.
  ::kill(-w.pid, SIGTERM);
  return true;
}

void Launcher::begin_stop(StopReason reason, int sig) {
  stop_ = reason;
  stop_signal_ = sig;
  running_at_stop_ = count_running();
  signal_workers(sig);
  term_sent_ = Clock::now();
}

void Launcher::signal_workers(int sig) {
  // Every worker's group, finished or not: a worker that failed may have
  // left children behind. Workers are reaped only in finish(), so each
  // group id is still reserved by its leader and cannot name a stranger.
  for (const Worker& w : workers_) {
    if (w.pid > 0) ::kill(-w.pid, sig);
  }
}

void Launcher::supervise() {
  const auto started = Clock::now();
  while (count_running() > 0) {
    const auto now = Clock::now();
    std::optional<Clock::time_point> next;
    const auto consider = [&next](Clock::time_point t) { next = next ? std::min(*next, t) : t; };
    if (stop_ == StopReason::kNone && options_.timeout.count() > 0) {
      if (now >= started + options_.timeout) {
        begin_stop(StopReason::kTimedOut, SIGTERM);
      } else {
        consider(started + std::chrono::duration_cast<Clock::duration>(options_.timeout));
      }
    }
    if (term_sent_ && !kill_sent_) {
      if (now >= *term_sent_ + options_.grace) {
        killed_ = count_running();
        killed_why_ =
            "still running after the " + format_duration(options_.grace) + " grace period, killed";
        signal_workers(SIGKILL);
        kill_sent_ = now;
      } else {
        consider(*term_sent_ + std::chrono::duration_cast<Clock::duration>(options_.grace));
      }
    }
    if (kill_sent_ && now >= *kill_sent_ + kKillWait) {
      launch_message(
          "warning: some workers did not end within 10 s of SIGKILL; not waiting for them");
      return;
    }
    int wait_ms = kMaxPollMs;
    if (next) {
      const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
      wait_ms = static_cast<int>(std::clamp<long long>(ms, 0, kMaxPollMs));
    }
    pump(wait_ms);
    reap();
  }
}

void Launcher::drain_output(Clock::duration limit) {
  const auto deadline = Clock::now() + limit;
  while (!output_.empty() && Clock::now() < deadline) pump(20);
}

}  // namespace strata::cli
