// The command line of strata-conformance: which plugins to load and which
// slice of the test matrix to run. GoogleTest's own --gtest_* flags pass
// through untouched, so a vendor can still filter, repeat or shuffle.
#ifndef STRATA_SDK_CONFORMANCE_OPTIONS_H_
#define STRATA_SDK_CONFORMANCE_OPTIONS_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::conformance {

struct SuiteOptions {
  std::vector<std::filesystem::path> plugins;
  std::vector<std::string> algorithms;  // ids or globs; empty: every algorithm
  std::vector<int> world_sizes{1, 2, 3, 4, 8};
  std::vector<uint64_t> counts{0, 1, 7, 1023, 65537};
  std::vector<std::string> dtypes;      // empty: every dtype
  std::vector<std::string> redops;      // empty: every operator
  std::string device_type = "cpu";
  int iterations = 3;                   // calls per test on one team
  std::chrono::milliseconds timeout{30000};  // deadline of each call
  bool quick = false;
  std::string json_file;
  // --processes: one process of a multi-process run (process_world.h).
  bool processes = false;
  std::string resolver = "auto";  // how each process finds its rank and world
  std::string store = "auto";     // the job store: auto (TCP at the chief) or type:address
  std::chrono::nanoseconds rendezvous_timeout = std::chrono::seconds(120);
  std::vector<std::string> gtest_args;  // argv[0] first, then --gtest_* flags
};

// What parse_options decided: run, or stop with an exit code (0 after
// --help, 2 for a usage error) having printed why.
struct ParseResult {
  bool run = false;
  int exit_code = 0;
  SuiteOptions options;
};

ParseResult parse_options(int argc, char** argv);

// The reduced matrix behind --quick, also what CTest runs: every dtype,
// operator and layout, but the world sizes and counts that find most bugs
// per second (1: no peers, 3: odd, 4 and 8: the common shapes; 0: empty,
// 7: fewer elements than some teams have replicas, 16411: prime, so never
// divisible by the team, and several 8 KiB blocks for every dtype). 65537
// finds nothing more in-tree and costs four times as much, most of it in
// reduce_scatter at 8 replicas (docs/CONFORMANCE.md has the timings).
inline const std::vector<int> kQuickWorldSizes{1, 3, 4, 8};
inline const std::vector<uint64_t> kQuickCounts{0, 7, 16411};

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_OPTIONS_H_
