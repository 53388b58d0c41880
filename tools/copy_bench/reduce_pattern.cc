// strata-reduce-pattern: how fast two processes can do the memory traffic
// of a 2-rank in-place all-reduce (f32 sum), with nothing else around it:
// rank r sums half r of both buffers and writes the result into both, as
// shm/all_reduce/mapped does on shm_host buffers, then both meet at a flag.
// That is the least traffic an all-reduce has (each rank reads n bytes
// and writes n), so the fastest layout here is a yardstick for any
// transport between these two cores at this size; the layouts differ in chunk size
// and in how the result reaches the peer's buffer (and, where one pass
// writes 2 MiB or more, in the kernel's stores: it streams those).
//
// It answers whether shm's 2-rank all-reduce is held back by anything but
// its traffic (docs/performance/shm.md, "The all-reduce's traffic").
//
//   build/bin/strata-reduce-pattern [--block BYTES] [--iterations N] [--rounds N]
//   (defaults: a 2 MiB buffer per rank; 32; 6)
#include <algorithm>
#include <cstring>
#include <cstdint>
#include <cstdio>

#include "pattern_harness.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/host_kernels.h"

namespace {

namespace sdk = strata::sdk;
namespace tools = strata::tools;

struct Buffers {
  std::byte* buffer[2];  // each rank's buffer, input and output
  uint64_t bytes;
};

// Rank r's part of bytes [at, at + n) of every buffer: half r, in floats.
struct Half {
  uint64_t begin;
  uint64_t bytes;
};
Half half_of(uint64_t at, uint64_t n, int r) {
  const uint64_t first = n / sizeof(float) / 2 * sizeof(float);
  return r == 0 ? Half{at, first} : Half{at + first, n - first};
}

// Sums half r of both buffers (in rank order, as the plugin does) into
// its own buffer and copies the result into the peer's, or (kOnePass)
// writes both from one pass of the kernel.
template <bool kOnePass>
void reduce_chunk(const Buffers& b, int r, uint64_t at, uint64_t n) {
  const Half h = half_of(at, n, r);
  const void* srcs[2] = {b.buffer[0] + h.begin, b.buffer[1] + h.begin};
  void* dsts[2] = {b.buffer[r] + h.begin, b.buffer[1 - r] + h.begin};
  const uint64_t count = h.bytes / sizeof(float);
  sdk::reduce_host_multi(STRATA_F32, STRATA_SUM, dsts, kOnePass ? 2 : 1, srcs, 2, count, 2);
  if (!kOnePass) sdk::copy_host(dsts[1], dsts[0], h.bytes);
}

template <uint64_t kChunk, bool kOnePass>
void all_reduce(const Buffers& b, int r) {
  const uint64_t chunk = kChunk == 0 ? b.bytes : kChunk;
  for (uint64_t at = 0; at < b.bytes; at += chunk) {
    reduce_chunk<kOnePass>(b, r, at, std::min(chunk, b.bytes - at));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* tool = "strata-reduce-pattern";
  const tools::PatternOptions options =
      tools::parse_pattern_options(tool, argc, argv, {2 << 20, 32, 6});
  tools::SharedPatternRun run(tool, 2 * options.block);
  // Zeros stay zeros: no call meets an infinity or a denormal.
  std::memset(run.data(), 0, 2 * options.block);
  const Buffers b{{run.data(), run.data() + options.block}, options.block};
  const std::vector<tools::PatternLayout> layouts = {
      tools::layout_of("256 KiB chunks, reduced into its own buffer, then copied", b,
                       all_reduce<256 << 10, false>),
      tools::layout_of("256 KiB chunks, reduced into both buffers in one pass (the plugin's)", b,
                       all_reduce<256 << 10, true>),
      tools::layout_of("64 KiB chunks, reduced into its own buffer, then copied", b,
                       all_reduce<64 << 10, false>),
      tools::layout_of("1 MiB chunks, reduced into its own buffer, then copied", b,
                       all_reduce<1 << 20, false>),
      tools::layout_of(
          "the whole half, reduced into both buffers in one pass (streams from 2 MiB)", b,
          all_reduce<0, true>),
  };
  std::printf("# 2 processes, all-reduce in place (f32 sum), %.2f MiB per rank, "
              "%d calls a round, %d rounds, layouts in turn\n",
              static_cast<double>(options.block) / 1048576, options.iterations, options.rounds);
  return run.time_layouts(layouts, options);
}
