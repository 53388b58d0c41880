// The plugin's options (`plugins: {options: {shm: {...}}}`), read once at
// registration so every rank with the same config decides alike. A bad value
// refuses the plugin with an error naming the option.
#ifndef STRATA_PLUGINS_SHM_SHM_OPTIONS_H_
#define STRATA_PLUGINS_SHM_SHM_OPTIONS_H_

#include <chrono>
#include <cstdint>

#include "staging_choice.h"

namespace strata::shm {

struct ShmOptions {
  // User bytes one rank stages per chunk. Chunks are what pipeline: while a
  // peer reduces chunk k, this rank stages chunk k+1. Sized to stay in L2.
  uint64_t chunk_bytes = 256 << 10;
  // Chunks a rank may stage ahead of its slowest peer (slots per segment).
  uint32_t slots = 4;
  // All-reduce and reduce calls up to this many bytes skip the slicing: every
  // rank reduces the whole (small) buffer from every staged copy, one flag
  // hand-off instead of two.
  uint64_t direct_bytes = 16 << 10;
  // How long a wait spins before it sleeps on the peer's futex, in
  // microseconds; negative means "decide per team": kSpinAlone when every
  // rank can have a core of its own, kSpinShared when there are more ranks
  // than cores this process may run on (a spinner then holds the core the
  // awaited peer needs). Open MPI makes the same call (mpi_yield_when_idle).
  int32_t spin_us = -1;
  static constexpr int32_t kSpinAlone = 200;
  static constexpr int32_t kSpinShared = 20;
  // The spin for a team of `ranks` on a host with `processors` online.
  std::chrono::microseconds spin_for(int ranks, long processors) const {
    return std::chrono::microseconds(spin_us >= 0         ? spin_us
                                     : ranks <= processors ? kSpinAlone
                                                           : kSpinShared);
  }
  // The stores a stage writes its slot with (staging_choice.h): auto
  // measures which is faster for each size class while the job runs.
  Staging staging = Staging::kAuto;
  // The alpha-beta-gamma model AUTO ranks the algorithms by.
  double alpha = 0.3e-6;       // seconds per flag hand-off
  double beta = 1.0 / 12e9;    // seconds per byte copied through the segments
  double gamma = 1.0 / 12e9;   // seconds per byte reduced

  // Throws sdk::InvalidArgument naming the option and what it expects.
  static ShmOptions from_host();
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SHM_OPTIONS_H_
