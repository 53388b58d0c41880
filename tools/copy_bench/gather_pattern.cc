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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "strata/sdk/host_copy.h"

namespace {

namespace sdk = strata::sdk;
using Clock = std::chrono::steady_clock;
using Copy = void (*)(void*, const void*, uint64_t) noexcept;

// Lines of their own, so the flags share none with the data or each other.
struct alignas(64) Arrival {
  std::atomic<uint64_t> generation{0};
};
struct Meeting {
  Arrival arrived[2];
};

struct Buffers {
  std::byte* in[2];   // each rank's block
  std::byte* out[2];  // each rank's gathered output: block 0, then block 1
  uint64_t block;
};

// One call's copies, as rank `r` does them.
struct Layout {
  const char* name;
  void (*run)(const Buffers& b, int r);
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

const Layout kLayouts[] = {
    {"own block, then the peer's (the plugin's order on rank 0)",
     gather<sdk::copy_host, sdk::copy_host, true>},
    {"the peer's block, then its own", gather<sdk::copy_host, sdk::copy_host, false>},
    {"push: its own block into both outputs", push},
    {"both blocks interleaved, 256 KiB at a time", interleaved},
    {"both blocks with streaming stores",
     gather<sdk::copy_host_streaming, sdk::copy_host_streaming, true>},
    {"own block streamed, the peer's cached", gather<sdk::copy_host_streaming, sdk::copy_host, true>},
};
constexpr int kLayoutCount = sizeof kLayouts / sizeof kLayouts[0];

[[noreturn]] void refuse(const char* option, const char* text, const char* what) {
  std::fprintf(stderr, "strata-gather-pattern: %s '%s' is not %s\n", option, text, what);
  std::exit(2);
}

// "4MiB", "64KiB" or bytes: from 64 B to 4 GiB per block.
uint64_t parse_bytes(const char* text) {
  char* end = nullptr;
  const double n = std::strtod(text, &end);
  const std::string unit = end;
  const double scale = unit == "KiB" ? 1024.0 : unit == "MiB" ? 1048576.0 : unit.empty() ? 1 : 0;
  const double bytes = n * scale;
  if (end == text || !std::isfinite(bytes) || bytes < 64 || bytes > 4294967296.0) {
    refuse("--block", text, "a size from 64 B to 4 GiB (e.g. 4MiB)");
  }
  return static_cast<uint64_t>(bytes);
}

int parse_count(const char* option, const char* text) {
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || n < 1 || n > 1000000) {
    refuse(option, text, "a whole number from 1 to 1000000");
  }
  return static_cast<int>(n);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t block = 4 << 20;
  int iterations = 32;
  int rounds = 6;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "usage: strata-gather-pattern [--block BYTES] [--iterations N] "
                           "[--rounds N]\n");
      return 2;
    }
    if (arg == "--block") {
      block = parse_bytes(argv[++i]);
    } else if (arg == "--iterations") {
      iterations = parse_count("--iterations", argv[++i]);
    } else if (arg == "--rounds") {
      rounds = parse_count("--rounds", argv[++i]);
    } else {
      std::fprintf(stderr, "strata-gather-pattern: unknown option '%s'\n", arg.c_str());
      return 2;
    }
  }
  block = (block + 63) / 64 * 64;
  const uint64_t data = 6 * block;  // two inputs, two outputs of two blocks
  void* mapped = ::mmap(nullptr, data + sizeof(Meeting), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    std::perror("strata-gather-pattern: mmap");
    return 1;
  }
  auto* base = static_cast<std::byte*>(mapped);
  std::memset(base, 1, data);  // every page faulted in before the fork
  auto* meeting = new (base + data) Meeting{};
  const Buffers buffers{{base, base + block}, {base + 2 * block, base + 4 * block}, block};
  std::printf("# 2 processes, all-gather out of place, %.2f MiB per rank (%.2f MiB output), "
              "%d calls a round, %d rounds, layouts in turn\n",
              static_cast<double>(block) / 1048576, static_cast<double>(2 * block) / 1048576,
              iterations, rounds);
  std::fflush(stdout);

  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("strata-gather-pattern: fork");
    return 1;
  }
  // The child dies with the parent, however the parent ends.
  if (child == 0 && (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)) {
    std::_Exit(1);
  }
  const int rank = child == 0 ? 1 : 0;
  uint64_t generation = 0;
  // Every meeting has a deadline, and the parent looks for a dead child
  // while it waits: neither spins on a peer that is gone.
  auto meet = [&] {
    meeting->arrived[rank].generation.store(++generation, std::memory_order_release);
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    for (uint64_t spins = 1;
         meeting->arrived[1 - rank].generation.load(std::memory_order_acquire) < generation;
         ++spins) {
      if ((spins & 0xffff) != 0) continue;
      int status = 0;
      if (rank == 0 && ::waitpid(child, &status, WNOHANG) == child) {
        std::fprintf(stderr, "strata-gather-pattern: the second process ended before the run\n");
        std::exit(1);
      }
      if (Clock::now() > deadline) {
        std::fprintf(stderr, "strata-gather-pattern: process %d: the other did not arrive in 60 s\n",
                     rank);
        std::_Exit(1);
      }
    }
  };
  std::vector<std::vector<double>> us(kLayoutCount);
  for (int round = 0; round < rounds; ++round) {
    for (int l = 0; l < kLayoutCount; ++l) {
      meet();
      const auto start = Clock::now();
      for (int i = 0; i < iterations; ++i) {
        kLayouts[l].run(buffers, rank);
        meet();
      }
      us[static_cast<size_t>(l)].push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - start).count() / iterations);
    }
  }
  if (rank == 1) std::_Exit(0);
  int status = 0;
  if (::waitpid(child, &status, 0) != child) status = 1 << 8;  // as exit(1)
  std::printf("%10s %10s  %s\n", "median_us", "best_us", "layout");
  for (int l = 0; l < kLayoutCount; ++l) {
    std::vector<double> sorted = us[static_cast<size_t>(l)];
    std::sort(sorted.begin(), sorted.end());
    std::printf("%10.1f %10.1f  %s\n", sorted[sorted.size() / 2], sorted.front(),
                kLayouts[l].name);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
