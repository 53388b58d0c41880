// Who pays for the barrier that keeps a wake-up from being lost.
//
// A raiser stores its flag, then reads `sleepers`; a sleeper counts itself
// in `sleepers`, then reads the flag (segment.h). Each side's store must be
// ordered before its load, or both can miss each other and the sleeper
// sleeps out its timeout: x86 lets a load pass an earlier store to another
// line. A full barrier on every raise (`xchg`) orders the raiser's side,
// but an 8 B call raises three or four flags and nearly never finds a
// sleeper, and those barriers were a sixth of its time
// (docs/performance/shm.md, "Light raises").
//
// So where the kernel has membarrier(2), the sleeper pays: it is about to
// make a system call anyway. MEMBARRIER_CMD_GLOBAL_EXPEDITED runs a full
// barrier on every CPU now running a thread of a process that registered,
// and a descheduled thread passed one when it was switched out. Either a
// raiser's load of `sleepers` came after that barrier, and sees the
// sleeper counted, or its flag store was drained by it, and the sleeper's
// read of the flag that follows sees it.
//
// A segment's owner raises lightly only if its own process registered
// (SegmentHeader::light_raises says so to its sleepers); the option
// `raises: fenced` keeps the barrier on every raise (shm_options.h).
#ifndef STRATA_PLUGINS_SHM_SLEEPER_FENCE_H_
#define STRATA_PLUGINS_SHM_SLEEPER_FENCE_H_

namespace strata::shm {

// Registers this process for the sleepers' fence, once (thread-safe);
// true if it is registered, so its raises may skip their barrier.
bool register_light_raiser();

// The sleeper's half: a full barrier on every running thread of every
// registered process. false if the kernel refused it: the caller must not
// sleep then (spinning loses no wake-up).
bool fence_light_raisers();

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SLEEPER_FENCE_H_
