// strata-gather-pattern: how fast two processes can do the copies of a
// 2-rank out-of-place all-gather, with nothing else around them: each
// process copies its own block and its peer's into its output, in shared
// memory both map, then both meet at a flag. Several ways to lay out
// those copies are timed in turn within one launch (so every way sees the
// same placement of the two cores), a loop of calls per round, median and
// best over rounds.
//
// It answers one question about shm/all_gather/mapped: whether any layout
// of the same copies would be faster (docs/performance/shm.md, "The
// all-gather's copies"). The plugin is not involved; only the SDK's copies.
//
//   build/bin/strata-gather-pattern [--block BYTES] [--iterations N] [--rounds N]
//   (defaults: 4 MiB per rank, that is an 8 MiB gathered output; 32; 6)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "pattern_harness.h"
#include "strata/sdk/host_copy.h"

namespace {

namespace sdk = strata::sdk;
namespace tools = strata::tools;
using Copy = void (*)(void*, const void*, uint64_t) noexcept;

struct Buffers {
  std::byte* in[2];   // each rank's block
  std::byte* out[2];  // each rank's gathered output: block 0, then block 1
  uint64_t block;
};

// Rank `from`'s block into rank `into`'s output, at its place there.
void block_into(const Buffers& b, int from, int into, Copy copy) {
  copy(b.out[into] + static_cast<uint64_t>(from) * b.block, b.in[from], b.block);
}

// Rank r's output: its own block with kOwn's stores and the peer's with
// kPeers', in that order or the other.
template <Copy kOwn, Copy kPeers, bool kOwnFirst>
void gather(const Buffers& b, int r) {
  if (kOwnFirst) block_into(b, r, r, kOwn);
  block_into(b, 1 - r, r, kPeers);
  if (!kOwnFirst) block_into(b, r, r, kOwn);
}

void push(const Buffers& b, int r) {
  block_into(b, r, r, sdk::copy_host);
  block_into(b, r, 1 - r, sdk::copy_host);
}

void interleaved(const Buffers& b, int r) {
  constexpr uint64_t kPiece = 256 << 10;
  for (uint64_t at = 0; at < b.block; at += kPiece) {
    const uint64_t n = std::min(kPiece, b.block - at);
    for (const int from : {r, 1 - r}) {
      sdk::copy_host(b.out[r] + static_cast<uint64_t>(from) * b.block + at, b.in[from] + at, n);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* tool = "strata-gather-pattern";
  const tools::PatternOptions options =
      tools::parse_pattern_options(tool, argc, argv, {4 << 20, 32, 6});
  const uint64_t block = options.block;
  tools::SharedPatternRun run(tool, 6 * block);  // two inputs, two outputs of two blocks
  std::byte* const base = run.data();
  const Buffers b{{base, base + block}, {base + 2 * block, base + 4 * block}, block};
  const std::vector<tools::PatternLayout> layouts = {
      tools::layout_of("own block, then the peer's (the plugin's order on rank 0)", b,
                       gather<sdk::copy_host, sdk::copy_host, true>),
      tools::layout_of("the peer's block, then its own", b,
                       gather<sdk::copy_host, sdk::copy_host, false>),
      tools::layout_of("push: its own block into both outputs", b, push),
      tools::layout_of("both blocks interleaved, 256 KiB at a time", b, interleaved),
      tools::layout_of("both blocks with streaming stores", b,
                       gather<sdk::copy_host_streaming, sdk::copy_host_streaming, true>),
      tools::layout_of("own block streamed, the peer's cached", b,
                       gather<sdk::copy_host_streaming, sdk::copy_host, true>),
  };
  std::printf("# 2 processes, all-gather out of place, %.2f MiB per rank (%.2f MiB output), "
              "%d calls a round, %d rounds, layouts in turn\n",
              static_cast<double>(block) / 1048576, static_cast<double>(2 * block) / 1048576,
              options.iterations, options.rounds);
  return run.time_layouts(layouts, options);
}
