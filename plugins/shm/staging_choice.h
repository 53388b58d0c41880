// Which stores a stage writes a slot with: ordinary (cached) ones, or
// non-temporal (streaming) ones that send the lines to memory.
//
// Neither wins everywhere, and which one wins changes while a job runs. On
// the VMs we measure, the two ranks' cores are sometimes close (a shared
// cache: a peer reads a staged line from it at once) and sometimes far
// apart: then writing a line that the peer still holds from the chunk
// before costs an exchange with its core, and a 128 KiB stage takes 30 µs
// instead of 6. Streaming stores skip that exchange (6 µs in both cases)
// but make the reader fetch from memory (12 µs instead of 6 when close).
// docs/performance/shm.md, "Staging stores", has the figures.
//
// So `staging: auto` (the default) measures: per power-of-two size class
// of calls from kSmallest bytes, the first call stages cached, the second
// streaming, then the faster so far by the calls' own times, with the
// other tried every kExploreEvery calls so a change of placement is seen.
// Every rank makes the same calls in the same order, so their counts and
// tries agree; each picks from its own timings.
#ifndef STRATA_PLUGINS_SHM_STAGING_CHOICE_H_
#define STRATA_PLUGINS_SHM_STAGING_CHOICE_H_

#include <array>
#include <cstdint>

namespace strata::shm {

enum class Staging { kAuto, kCached, kStreaming };

class StagingChoice {
 public:
  explicit StagingChoice(Staging option) : option_(option) {}

  // Below this a call's stages are always cached: the reader of a small
  // chunk waits for it, and a line from memory arrives later than one from
  // a cache.
  static constexpr uint64_t kSmallest = 64 << 10;
  static constexpr uint64_t kExploreEvery = 16;

  struct Pick {
    bool streaming = false;
    bool timed = false;  // report the call's time to learn()
  };
  // For the next call, whose ranks each move `bytes` of their own data.
  Pick pick(uint64_t bytes);
  // The picked call took `ns` from post to done.
  void learn(uint64_t bytes, bool streaming, int64_t ns);

  // Its nanoseconds per byte so far for `streaming` in `bytes`' class; 0:
  // not measured (for tests).
  double estimate(uint64_t bytes, bool streaming) const;

 private:
  struct SizeClass {
    double ns_per_byte[2] = {0, 0};  // [cached, streaming]
    uint64_t calls = 0;
  };
  static int class_of(uint64_t bytes);

  Staging option_;
  std::array<SizeClass, 64> classes_{};
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_STAGING_CHOICE_H_
