// The harness of the copy-pattern tools (strata-gather-pattern,
// strata-reduce-pattern): two processes share one anonymous mapping, run
// several layouts of one collective's copies in turn within one launch (so
// every layout sees the same placement of the two cores), a loop of calls
// per round with a meeting after each, and print each layout's median and
// best time per call over rounds. No plugin is involved; only the SDK.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace strata::tools {

struct PatternOptions {
  uint64_t block;  // bytes per rank, a multiple of 64
  int iterations;  // calls a round
  int rounds;
};

// --block BYTES (64 B to 4 GiB: "4MiB", "64KiB", "1GiB" or bytes),
// --iterations N, --rounds N; a bad argument prints why and exits with 2.
PatternOptions parse_pattern_options(const char* tool, int argc, char** argv,
                                     PatternOptions defaults);

// One call's copies as rank 0 or 1 does them.
struct PatternLayout {
  const char* name;
  std::function<void(int rank)> run;
};

// A layout from a function of the tool's buffers and the rank.
template <class Buffers>
PatternLayout layout_of(const char* name, const Buffers& buffers,
                        void (*run)(const Buffers&, int rank)) {
  return PatternLayout{name, [&buffers, run](int rank) { run(buffers, rank); }};
}

struct Meeting;

// `bytes` of memory both processes map (every page faulted in before the
// fork), and the flags they meet at. Exits with 1 if it cannot be had.
class SharedPatternRun {
 public:
  SharedPatternRun(const char* tool, uint64_t bytes);
  std::byte* data() const { return data_; }

  // Forks the second process and times every layout; returns the exit
  // code (0 when both processes finished). Every meeting has a 60 s
  // deadline, and the second process dies with the first.
  int time_layouts(const std::vector<PatternLayout>& layouts, const PatternOptions& options);

 private:
  const char* tool_;
  std::byte* data_;
  Meeting* meeting_;
};

}  // namespace strata::tools
