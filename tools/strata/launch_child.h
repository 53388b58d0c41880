// Starting one child of `strata launch` (a worker or ompi-server) so that it
// can be stopped as a whole and cannot outlive the launcher: its own process
// group, PR_SET_PDEATHSIG, stdin from /dev/null, stdout and stderr to pipes.
#ifndef STRATA_TOOLS_STRATA_LAUNCH_CHILD_H_
#define STRATA_TOOLS_STRATA_LAUNCH_CHILD_H_

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata::cli {

struct SpawnRequest {
  std::string what;               // "worker 1", for messages
  std::string path;               // resolved executable (find_program)
  std::vector<std::string> argv;  // argv[0] first
  std::vector<std::string> env;   // "NAME=value"
  sigset_t signal_mask;           // the mask the child runs with (the launcher's original)
};

struct SpawnedChild {
  pid_t pid = -1;   // also its process group id
  int out_fd = -1;  // read ends, non-blocking, close-on-exec
  int err_fd = -1;
};

// Forks and execs. The child leads a new process group (signals sent to
// -pid reach whatever it starts too) and gets SIGKILL if the launcher dies,
// however it dies. An exec failure is reported by the child on its stderr
// pipe and ends it with 127 (not found) or 126 (not executable), as a shell does.
StatusOr<SpawnedChild> spawn_child(const SpawnRequest& request);

// The wait status of `pid` once it has ended, without reaping it: the
// zombie keeps its pid and process group id reserved, so the launcher can
// still signal the group (the children it left) with no risk of hitting an
// unrelated process that reused the number. nullopt while it runs.
std::optional<int> peek_exit(pid_t pid);

// Where execvp would find `name`: itself if it contains '/', else the first
// executable match in PATH. NOT_FOUND / PERMISSION_DENIED name the program
// and the directories searched.
StatusOr<std::string> find_program(const std::string& name);

// "exited with status 3", "was killed by signal 9 (SIGKILL)".
std::string describe_wait_status(int status);

// The shell's convention: the exit status, or 128 + signal number.
int exit_code_of(int status);

// "SIGTERM" for 15; "signal 99" for numbers without a name.
std::string signal_name(int sig);

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_LAUNCH_CHILD_H_
