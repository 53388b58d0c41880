#include "peer_liveness.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace strata::shm {

PeerLiveness peer_liveness(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PeerLiveness::kDead;  // gone, and reaped
  char text[512];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return PeerLiveness::kDead;
  text[n] = '\0';
  // "pid (comm) S ...": comm may hold spaces and parentheses, so the state
  // is the first field after the last ')'.
  const char* close = std::strrchr(text, ')');
  if (close == nullptr || close[1] == '\0' || close[2] == '\0') return PeerLiveness::kRunning;
  switch (close[2]) {
    case 'Z':
    case 'X':
    case 'x':
      return PeerLiveness::kDead;
    case 'T':
    case 't':
      return PeerLiveness::kStopped;
    default:
      return PeerLiveness::kRunning;
  }
}

std::string rank_and_pid(int rank, int64_t pid) {
  return "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + ")";
}

std::string peer_state(pid_t pid) {
  switch (peer_liveness(pid)) {
    case PeerLiveness::kDead:
      return "died";
    case PeerLiveness::kStopped:
      return "is stopped (SIGSTOP or a debugger)";
    case PeerLiveness::kRunning:
      break;
  }
  return {};
}

std::string peer_trouble(int rank, pid_t pid) {
  const std::string state = peer_state(pid);
  return state.empty() ? state : rank_and_pid(rank, pid) + " " + state;
}

}  // namespace strata::shm
