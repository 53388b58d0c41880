#include "pattern_harness.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

namespace strata::tools {

// Lines of their own, so the flags share none with the data or each other.
struct alignas(64) Arrival {
  std::atomic<uint64_t> generation{0};
};
struct Meeting {
  Arrival arrived[2];
};

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void refuse(const char* tool, const char* option, const char* text,
                         const char* what) {
  std::fprintf(stderr, "%s: %s '%s' is not %s\n", tool, option, text, what);
  std::exit(2);
}

uint64_t parse_bytes(const char* tool, const char* text) {
  char* end = nullptr;
  const double n = std::strtod(text, &end);
  const std::string unit = end;
  const double scale = unit == "KiB"   ? 1024.0
                      : unit == "MiB" ? 1048576.0
                      : unit == "GiB" ? 1073741824.0
                      : unit.empty()  ? 1
                                      : 0;
  const double bytes = n * scale;
  if (end == text || !std::isfinite(bytes) || bytes < 64 || bytes > 4294967296.0) {
    refuse(tool, "--block", text, "a size from 64 B to 4 GiB (e.g. 4MiB)");
  }
  return static_cast<uint64_t>(bytes);
}

int parse_count(const char* tool, const char* option, const char* text) {
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || n < 1 || n > 1000000) {
    refuse(tool, option, text, "a whole number from 1 to 1000000");
  }
  return static_cast<int>(n);
}

}  // namespace

PatternOptions parse_pattern_options(const char* tool, int argc, char** argv,
                                     PatternOptions defaults) {
  PatternOptions options = defaults;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "usage: %s [--block BYTES] [--iterations N] [--rounds N]\n", tool);
      std::exit(2);
    }
    if (arg == "--block") {
      options.block = parse_bytes(tool, argv[++i]);
    } else if (arg == "--iterations") {
      options.iterations = parse_count(tool, "--iterations", argv[++i]);
    } else if (arg == "--rounds") {
      options.rounds = parse_count(tool, "--rounds", argv[++i]);
    } else {
      std::fprintf(stderr, "%s: unknown option '%s'\n", tool, arg.c_str());
      std::exit(2);
    }
  }
  options.block = (options.block + 63) / 64 * 64;
  return options;
}

SharedPatternRun::SharedPatternRun(const char* tool, uint64_t bytes) : tool_(tool) {
  bytes = (bytes + 63) / 64 * 64;  // the meeting's lines start on a line
  void* mapped = ::mmap(nullptr, bytes + sizeof(Meeting), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    std::fprintf(stderr, "%s: mmap of %llu bytes: %s\n", tool,
                 static_cast<unsigned long long>(bytes), std::strerror(errno));
    std::exit(1);
  }
  data_ = static_cast<std::byte*>(mapped);
  std::memset(data_, 1, bytes);
  meeting_ = new (data_ + bytes) Meeting{};
}

int SharedPatternRun::time_layouts(const std::vector<PatternLayout>& layouts,
                                   const PatternOptions& options) {
  std::fflush(stdout);  // or the child prints the parent's header again
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    std::fprintf(stderr, "%s: fork: %s\n", tool_, std::strerror(errno));
    return 1;
  }
  // The child dies with the parent, however the parent ends.
  if (child == 0 && (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)) {
    std::_Exit(1);
  }
  const int rank = child == 0 ? 1 : 0;
  uint64_t generation = 0;
  int reaped = -1;  // the second process's wait status, once collected
  // Neither spins on a peer that is gone: the first process looks for a
  // dead second one while it waits, and both give up at a deadline.
  auto meet = [&] {
    meeting_->arrived[rank].generation.store(++generation, std::memory_order_release);
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    for (uint64_t spins = 1;
         meeting_->arrived[1 - rank].generation.load(std::memory_order_acquire) < generation;
         ++spins) {
      if ((spins & 0xffff) != 0) continue;
      if (rank == 0 && reaped < 0 && ::waitpid(child, &reaped, WNOHANG) == child) {
        // It may have arrived, and ended, since the load above.
        if (meeting_->arrived[1].generation.load(std::memory_order_acquire) >= generation) break;
        std::fprintf(stderr, "%s: the second process ended before the run\n", tool_);
        std::exit(1);
      }
      if (Clock::now() > deadline) {
        std::fprintf(stderr, "%s: process %d: the other did not arrive in 60 s\n", tool_, rank);
        std::_Exit(1);
      }
    }
  };
  std::vector<std::vector<double>> us(layouts.size());
  // Odd rounds take the layouts in reverse order, so none is always timed
  // in the wake of the same other (streaming stores leave the caches
  // emptier for the next).
  for (int round = 0; round < options.rounds; ++round) {
    for (size_t turn = 0; turn < layouts.size(); ++turn) {
      const size_t l = round % 2 == 0 ? turn : layouts.size() - 1 - turn;
      meet();
      const auto start = Clock::now();
      for (int i = 0; i < options.iterations; ++i) {
        layouts[l].run(rank);
        meet();
      }
      us[l].push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                      options.iterations);
    }
  }
  if (rank == 1) std::_Exit(0);
  int status = reaped;
  if (status < 0 && ::waitpid(child, &status, 0) != child) status = 1 << 8;  // as exit(1)
  std::printf("%10s %10s  %s\n", "median_us", "best_us", "layout");
  for (size_t l = 0; l < layouts.size(); ++l) {
    std::vector<double> sorted = us[l];
    std::sort(sorted.begin(), sorted.end());
    std::printf("%10.1f %10.1f  %s\n", sorted[sorted.size() / 2], sorted.front(),
                layouts[l].name);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace strata::tools
