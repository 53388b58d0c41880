// strata-gloo-anchor: Gloo's ring all-reduce on its own — no MPI, no Strata
// runtime, no other transport in the processes — the anchor that
// strata-ring-bench's Gloo column is checked against (issue 27):
//
//   strata-gloo-anchor [-np 2] [-b 1KiB] [-e 64MiB] [--rounds 5] [--null] [--pin]
//                      [--csv FILE]
//
// It forks -np ranks that meet through a gloo::rendezvous::FileStore in a
// fresh temporary folder. Each size is timed the way strata-ring-bench times
// a side: the slowest rank's mean per call, best of --rounds rounds, busbw
// as nccl-tests. --null runs two independent Gloo contexts in the same
// processes, interleaved round by round with the first side rotating, and
// prints the median of the rounds' time ratios: what a ratio reads when
// nothing differs (the machine's noise). --pin binds rank r to CPU r mod the
// CPU count, all of its threads with it, as mpirun's default binding does
// for 2 ranks: what made Gloo run 7-40x slower in strata-ring-bench
// (docs/performance/grpc_ring.md).
#include <gloo/rendezvous/file_store.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "core/common/units.h"
#include "tools/ring_bench/gloo_ring.h"
#include "tools/ring_bench/sweep.h"

namespace strata {
namespace {

struct AnchorOptions {
  int world = 2;
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = uint64_t{64} << 20;
  int rounds = 5;
  bool null_run = false;
  bool pin = false;
  std::string csv;
  std::chrono::seconds timeout{600};
};

StatusOr<double> time_loop(GlooRing& ring, int iterations, float* data, size_t count) {
  for (int i = 0; i < std::min(iterations, 10); ++i) {
    STRATA_RETURN_IF_ERROR(ring.all_reduce(data, data, count));
  }
  STRATA_RETURN_IF_ERROR(ring.barrier());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) STRATA_RETURN_IF_ERROR(ring.all_reduce(data, data, count));
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return ring.max_across_ranks(took.count() / iterations);
}

Status pin_to_one_cpu(int rank) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    return InternalError("rank " + std::to_string(rank) + ": sched_getaffinity failed");
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[static_cast<size_t>(rank) % cpus.size()], &one);
  if (::sched_setaffinity(0, sizeof one, &one) != 0) {
    return InternalError("rank " + std::to_string(rank) + ": sched_setaffinity failed");
  }
  return Status::Ok();
}

Status run_rank(const AnchorOptions& o, const std::string& folder, int rank) {
  // Before Gloo starts its device thread, which inherits the binding.
  if (o.pin) STRATA_RETURN_IF_ERROR(pin_to_one_cpu(rank));
  gloo::rendezvous::FileStore store(folder);
  std::vector<std::unique_ptr<GlooRing>> sides;
  for (int s = 0; s < (o.null_run ? 2 : 1); ++s) {
    STRATA_ASSIGN_OR_RETURN(auto ring, GlooRing::connect(store, "side" + std::to_string(s), rank,
                                                         o.world, "127.0.0.1",
                                                         std::chrono::seconds(60)));
    sides.push_back(std::move(ring));
  }
  std::vector<std::string> names = {"gloo"};
  std::vector<std::pair<size_t, size_t>> ratios;
  if (o.null_run) {
    names.push_back("gloo2");
    ratios.emplace_back(1, 0);
  }
  SweepTable table(o.csv, o.world, names, ratios, rank == 0);
  table.print_header();
  for (uint64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    const size_t count = std::max<uint64_t>(bytes / 4, 1);
    std::vector<float> data(count, 1.0f);
    double slowest = 0;
    for (auto& side : sides) {
      STRATA_ASSIGN_OR_RETURN(double t, time_loop(*side, 3, data.data(), count));
      slowest = std::max(slowest, t);
    }
    SweepRow row(bytes, iterations_for(bytes, slowest), sides.size());
    for (int round = 0; round < o.rounds; ++round) {
      std::vector<double> took(sides.size());
      for (size_t k = 0; k < sides.size(); ++k) {
        const size_t side = (round + k) % sides.size();  // rotate who goes first
        STRATA_ASSIGN_OR_RETURN(took[side],
                                time_loop(*sides[side], row.iterations, data.data(), count));
        std::fill(data.begin(), data.end(), 1.0f);  // keep values finite
      }
      row.add_round(took);
    }
    table.add(row);
  }
  return table.finish();
}

// Forks the ranks and waits for them, killing every one at the deadline:
// nothing outlives the run.
int run_job(const AnchorOptions& o) {
  char pattern[] = "/tmp/strata-gloo-anchor-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    std::perror("strata-gloo-anchor: mkdtemp");
    return 1;
  }
  const std::string folder = pattern;
  const pid_t parent = ::getpid();
  std::vector<pid_t> children;
  for (int rank = 0; rank < o.world; ++rank) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      Status s = run_rank(o, folder, rank);
      if (!s.ok()) {
        std::fprintf(stderr, "strata-gloo-anchor (rank %d): %s\n", rank, s.to_string().c_str());
      }
      std::fflush(stdout);
      ::_exit(s.ok() ? 0 : 1);
    }
    if (pid < 0) {
      std::perror("strata-gloo-anchor: fork");
      break;
    }
    children.push_back(pid);
  }
  int failed = static_cast<int>(o.world - children.size());
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  size_t running = children.size();
  while (running > 0) {
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      --running;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "strata-gloo-anchor: the ranks ran past %llds; killing them\n",
                   static_cast<long long>(o.timeout.count()));
      for (pid_t pid : children) ::kill(pid, SIGKILL);
      while (::waitpid(-1, &status, 0) > 0) {
      }
      failed = o.world;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  return failed == 0 ? 0 : 1;
}

int usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: strata-gloo-anchor [-np N] [-b SIZE] [-e SIZE] [--rounds N] [--null]\n"
               "       [--pin] [--csv FILE] [--timeout SECONDS]\n");
  return code;
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  strata::AnchorOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if ((arg == "-b" || arg == "-e") && has_value) {
      auto size = strata::parse_size(argv[++i]);
      if (!size.ok()) {
        std::fprintf(stderr, "strata-gloo-anchor: %s\n", size.status().to_string().c_str());
        return 2;
      }
      (arg == "-b" ? o.min_bytes : o.max_bytes) = *size;
    } else if (arg == "-np" && has_value) {
      o.world = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--rounds" && has_value) {
      o.rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--timeout" && has_value) {
      o.timeout = std::chrono::seconds(std::max(1, std::atoi(argv[++i])));
    } else if (arg == "--pin") {
      o.pin = true;
    } else if (arg == "--null") {
      o.null_run = true;
    } else if (arg == "--csv" && has_value) {
      o.csv = argv[++i];
    } else {
      return strata::usage(arg == "--help" ? 0 : 2);
    }
  }
  return strata::run_job(o);
}
