#include "sleeper_fence.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace strata::shm {
namespace {

long membarrier(int command) { return ::syscall(SYS_membarrier, command, 0, 0); }

}  // namespace

bool register_light_raiser() {
  // A function-local static: registered once per process, whichever team
  // forms first, and every later team reuses the answer.
  static const bool registered = [] {
    const long commands = membarrier(MEMBARRIER_CMD_QUERY);
    if (commands < 0 || (commands & MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0) return false;
    if (membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) != 0) return false;
    // A seccomp filter may let the query through and not the barrier: the
    // first sleeper would find out too late.
    return membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0;
  }();
  return registered;
}

bool fence_light_raisers() { return membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0; }

}  // namespace strata::shm
