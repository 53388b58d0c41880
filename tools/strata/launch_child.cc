#include "tools/strata/launch_child.h"

#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace strata::cli {
namespace {

// Pipes for one stream; whatever is still open is closed on the way out.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
  ~Pipe() {
    if (read_end >= 0) ::close(read_end);
    if (write_end >= 0) ::close(write_end);
  }
  int release_read() {
    const int fd = read_end;
    read_end = -1;
    return fd;
  }
};

void write_raw(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) text.remove_prefix(static_cast<size_t>(n));
  }
}

// Runs in the forked child: only calls that are safe after fork() in a
// single-threaded parent, and everything it needs was built beforehand.
[[noreturn]] void become(const SpawnRequest& request, char* const* argv, char* const* envp,
                         int devnull, int out_fd, int err_fd, pid_t launcher,
                         const std::string& failure_prefix) {
  ::setpgid(0, 0);
  // PDEATHSIG fires when the parent dies; if it died before this line,
  // the signal is never sent, hence the getppid check after arming it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != launcher) ::_exit(127);
  // The launcher ignores SIGPIPE and blocks the signals it reads through a
  // signalfd; both would be inherited through exec.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &dfl, nullptr);
  ::sigprocmask(SIG_SETMASK, &request.signal_mask, nullptr);
  // The launcher keeps 0, 1 and 2 open, so these fds are all >= 3 and
  // dup2 never lands on itself (which would keep close-on-exec set).
  if (::dup2(devnull, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) ::_exit(127);
  ::execve(request.path.c_str(), argv, envp);
  const int err = errno;
  write_raw(2, failure_prefix);
  write_raw(2, ::strerror(err));
  write_raw(2, "\n");
  ::_exit(err == ENOENT ? 127 : 126);
}

}  // namespace

StatusOr<SpawnedChild> spawn_child(const SpawnRequest& request) {
  std::vector<char*> argv;
  for (const std::string& a : request.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : request.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string failure_prefix =
      "strata launch: cannot execute '" + request.path + "' for " + request.what + ": ";

  Pipe out;
  Pipe err;
  int out_fds[2];
  int err_fds[2];
  if (::pipe2(out_fds, O_CLOEXEC) != 0) {
    return UnavailableError("cannot create the stdout pipe of " + request.what + ": " +
                            errno_text(errno));
  }
  out.read_end = out_fds[0];
  out.write_end = out_fds[1];
  if (::pipe2(err_fds, O_CLOEXEC) != 0) {
    return UnavailableError("cannot create the stderr pipe of " + request.what + ": " +
                            errno_text(errno));
  }
  err.read_end = err_fds[0];
  err.write_end = err_fds[1];
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) {
    return UnavailableError("cannot open /dev/null as stdin of " + request.what + ": " +
                            errno_text(errno));
  }

  const pid_t launcher = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    become(request, argv.data(), envp.data(), devnull, out.write_end, err.write_end, launcher,
           failure_prefix);
  }
  const int fork_errno = errno;
  ::close(devnull);
  if (pid < 0) {
    return UnavailableError("cannot fork " + request.what + " (" + request.path +
                            "): " + errno_text(fork_errno));
  }
  // Also set here: whichever of parent and child runs first, the group
  // exists before the launcher might signal it. EACCES after the child's
  // exec just means the child already did it.
  ::setpgid(pid, pid);
  SpawnedChild child;
  child.pid = pid;
  child.out_fd = out.release_read();
  child.err_fd = err.release_read();
  for (int fd : {child.out_fd, child.err_fd}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return child;
}

StatusOr<std::string> find_program(const std::string& name) {
  const auto check = [](const std::string& path) -> int {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno;
    if (!S_ISREG(st.st_mode)) return EACCES;
    return ::access(path.c_str(), X_OK) == 0 ? 0 : errno;
  };
  if (name.empty()) return InvalidArgumentError("PROGRAM is an empty string");
  if (name.find('/') != std::string::npos) {
    const int e = check(name);
    if (e == 0) return name;
    if (e == ENOENT) return NotFoundError("program '" + name + "' does not exist");
    return PermissionDeniedError("program '" + name + "' cannot be executed: " +
                                 (e == EACCES ? "not an executable file" : errno_text(e)));
  }
  const char* env_path = std::getenv("PATH");
  const std::string path = env_path != nullptr ? env_path : "/usr/local/bin:/usr/bin:/bin";
  bool saw_denied = false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    const int e = check(candidate);
    if (e == 0) return candidate;
    saw_denied = saw_denied || e == EACCES;
    start = end + 1;
  }
  if (saw_denied) {
    return PermissionDeniedError("program '" + name +
                                 "' is on PATH but not executable (PATH=" + path + ")");
  }
  return NotFoundError("program '" + name + "' is not on PATH (" + path + ")");
}

std::optional<int> peek_exit(pid_t pid) {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid) {
    return std::nullopt;
  }
  // Rebuilt in waitpid's encoding so the W* macros read it.
  if (info.si_code == CLD_EXITED) return (info.si_status & 0xff) << 8;
  return (info.si_status & 0x7f) | (info.si_code == CLD_DUMPED ? 0x80 : 0);
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  if (abbrev == nullptr) return "signal " + std::to_string(sig);
  return std::string("SIG") + abbrev;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" + signal_name(sig) + ")" +
           (WCOREDUMP(status) ? ", core dumped" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace strata::cli
