// strata-mpi-bench: what Strata's collective path costs on top of Open MPI.
// Run under mpirun; every rank alternates, size by size, between a raw
// MPI_Allreduce loop (or the --reference below) and the same loop through
// CollectiveOps with the mpi
// plugin (team from the mpi resolver and the job store, algorithm forced to
// mpi/all_reduce/native unless --algorithm says otherwise). Same buffers,
// sizes and iteration counts; each side's time is the slowest rank's mean
// per call, best of --rounds rounds, so both see the same machine state;
// `ratio` compares the two bests, `median` is the median of the rounds' own
// ratios (each round times both sides back to back, in alternating order),
// the steadier figure on a VM whose speed drifts between rounds.
//
// --cpu adds each side's processor time per call (user and system, mean
// over ranks and rounds, from getrusage). With more ranks than cores the
// wall time measures how the scheduler shares the cores, and every rank
// spins in MPI while it waits: processor time then says which side burns
// more of it, and in the library or in the kernel (sched_yield).
//
// --reference p2p times, in place of MPI_Allreduce, a hand-written recursive
// doubling over the MPI calls the plugin itself makes for small payloads
// (MPI_Irecv, MPI_Isend, MPI_Testall, a local sum): the difference to
// Strata is then the framework's layers alone, not the plugin's choice of
// MPI calls. Power-of-two teams only. Out of place it copies the input to
// the output first, which neither MPI_Allreduce nor the plugin does: a
// small-payload yardstick. Both sides' answers are checked (#wrong).
//
// --null times the reference on both sides: the ratios it prints are what
// the benchmark reads when there is no difference at all, the yardstick for
// how far one launch's row can be trusted (docs/performance/mpi.md).
//
//   mpirun -np 2 build/bin/strata-mpi-bench [-b 8B] [-e 64MiB] [--out-of-place]
//                                           [--csv FILE] [--config FILE] [--cpu]
//                                           [--reference allreduce|p2p] [--null]
//
// It links MPI itself (core never does), so it initialises MPI first and
// the plugin, finding MPI initialised, leaves init and finalize to it.
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/common/units.h"
#include "core/config/config_choice.h"
#include "core/runtime/runtime.h"
#include "tools/common/mpi_job_team.h"

namespace strata {
namespace {

struct Options {
  uint64_t min_bytes = 8;
  uint64_t max_bytes = uint64_t{64} << 20;
  int rounds = 3;
  std::string algorithm = "mpi/all_reduce/native";
  std::string csv;
  std::string config;  // plugin options (plugins.options.mpi.*) to try
  bool in_place = true;
  bool cpu = false;
  bool p2p_reference = false;
  bool null_comparison = false;
};

// The plugin's small-payload schedule, written against MPI directly: each
// step posts the receive and the send, polls both with MPI_Testall and
// adds what arrived. f32 sum into `data`; `scratch` holds one message.
void p2p_recursive_doubling(float* data, float* scratch, int count, int rank, int world) {
  for (int mask = 1; mask < world; mask <<= 1) {
    const int peer = rank ^ mask;
    MPI_Request requests[2];
    MPI_Irecv(scratch, count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(data, count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &requests[1]);
    int done = 0;
    while (done == 0) MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
    for (int i = 0; i < count; ++i) data[i] += scratch[i];
  }
}

// One timed loop: the slowest rank's wall time per call, and the ranks'
// mean processor time per call.
struct LoopCost {
  double seconds = 0;
  double user_us = 0;
  double system_us = 0;
};

double micros(const timeval& t) {
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec);
}

int iterations_for(uint64_t bytes) {
  // ~256 MiB moved per round and side (~50 ms from 1 MiB up on the
  // reference VM): shorter rounds let one scheduler hiccup decide a row.
  const uint64_t n = (uint64_t{256} << 20) / std::max<uint64_t>(bytes, 16384);
  return static_cast<int>(std::clamp<uint64_t>(n, 4, 20000));
}

template <class Body>
LoopCost time_loop(int iterations, Body&& body) {
  // Warm caches, page in buffers and settle both sides before timing.
  for (int i = 0; i < std::min(iterations, 50); ++i) body();
  MPI_Barrier(MPI_COMM_WORLD);
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) body();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  getrusage(RUSAGE_SELF, &after);
  const double n = iterations;
  double mine[2] = {(micros(after.ru_utime) - micros(before.ru_utime)) / n,
                    (micros(after.ru_stime) - micros(before.ru_stime)) / n};
  double total[2] = {0, 0};
  LoopCost cost;
  const double seconds = took.count() / n;
  MPI_Allreduce(&seconds, &cost.seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(mine, total, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  cost.user_us = total[0] / world;
  cost.system_us = total[1] / world;
  return cost;
}

Status run(const Options& o, int rank, int world) {
  // Checked before the team forms: that costs a rendezvous and MPI set-up.
  if (o.p2p_reference && (world & (world - 1)) != 0) {
    return InvalidArgumentError("--reference p2p needs a power-of-two number of ranks, not " +
                                std::to_string(world));
  }
  RuntimeOptions ro;
  ro.plugin_files = {std::string(STRATA_PLUGIN_DIR) + "/libstrata_mpi.so"};
  ro.discover_plugins = false;
  STRATA_ASSIGN_OR_RETURN(Config config, load_chosen_config(choose_config(o.config)));
  STRATA_ASSIGN_OR_RETURN(auto runtime, Runtime::create(config, ro));
  STRATA_ASSIGN_OR_RETURN(MpiJobTeam team, join_mpi_job(runtime, rank, world));
  const auto& devices = team.devices;
  auto& ops = team.ops;
  CallOptions call;
  call.algorithm = o.algorithm == "auto" ? "" : o.algorithm;
  const char* reference =
      o.p2p_reference ? "hand-written p2p recursive doubling" : "raw MPI_Allreduce";
  // The reference's columns are named after it: `mpi` or `p2p`. Under
  // --null the other side is the reference again (`mpi_again`), so a CSV
  // of a control run cannot pass for a measurement of Strata.
  const std::string ref = o.p2p_reference ? "p2p" : "mpi";
  const std::string side = o.null_comparison ? ref + "_again" : "strata";
  const std::string side_short = o.null_comparison ? "again" : "str";

  std::FILE* csv = nullptr;
  if (rank == 0) {
    if (o.null_comparison) {
      std::printf("# %d ranks, f32 sum, %s, %s vs itself (--null: the benchmark's own noise; "
                  "#wrong still checks Strata)\n",
                  world, o.in_place ? "in place" : "out of place", reference);
    } else {
      std::printf("# %d ranks, f32 sum, %s, %s vs CollectiveOps::all_reduce (%s)\n", world,
                  o.in_place ? "in place" : "out of place", reference, o.algorithm.c_str());
    }
    std::printf("%12s %8s %12s %12s %10s %8s %8s %7s", "size", "iters", (ref + "_us").c_str(),
                (side + "_us").c_str(), "extra_us", "ratio", "median", "#wrong");
    if (o.cpu) {
      std::printf(" %9s %9s %9s %9s", (ref + "_usr").c_str(), (ref + "_sys").c_str(),
                  (side_short + "_usr").c_str(), (side_short + "_sys").c_str());
    }
    std::printf("\n");
    if (!o.csv.empty()) {
      csv = std::fopen(o.csv.c_str(), "w");
      if (csv != nullptr) {
        std::fprintf(csv, "bytes,iterations,%s_us,%s_us,extra_us,ratio,median_ratio,wrong",
                     ref.c_str(), side.c_str());
        if (o.cpu) {
          std::fprintf(csv, ",%s_user_us,%s_system_us,%s_user_us,%s_system_us", ref.c_str(),
                       ref.c_str(), side.c_str(), side.c_str());
        }
        std::fprintf(csv, "\n");
      }
    }
  }
  for (uint64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    const uint64_t count = std::max<uint64_t>(bytes / 4, 1);
    std::vector<float> data(count, 1.0f);
    std::vector<float> result(o.in_place ? 0 : count);
    float* out = o.in_place ? data.data() : result.data();
    std::vector<float> scratch(o.p2p_reference ? count : 0);
    const Buffer buffer{data.data(), DType::kF32, count, devices[0]};
    const Buffer out_buffer{out, DType::kF32, count, devices[0]};
    const int iterations = iterations_for(bytes);
    double raw = 1e30, ours = 1e30;
    LoopCost raw_cpu, our_cpu;  // sums over rounds
    std::vector<double> round_ratios;
    Status failure;
    auto reference_call = [&] {
      if (o.p2p_reference) {
        if (!o.in_place) std::copy(data.begin(), data.end(), out);
        p2p_recursive_doubling(out, scratch.data(), static_cast<int>(count), rank, world);
        return;
      }
      MPI_Allreduce(o.in_place ? MPI_IN_PLACE : data.data(), out, static_cast<int>(count),
                    MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    };
    auto raw_loop = [&] { return time_loop(iterations, reference_call); };
    auto our_loop = [&] {
      if (o.null_comparison) return time_loop(iterations, reference_call);
      return time_loop(iterations, [&] {
        Status s = ops->all_reduce({&buffer, 1}, {&out_buffer, 1}, ReduceOp::kSum, call);
        if (!s.ok() && failure.ok()) failure = s;
      });
    };
    for (int round = 0; round < o.rounds; ++round) {
      // Alternate which side goes first, so neither always inherits the
      // other's cache state or a drifting clock speed.
      LoopCost r, u;
      if (round % 2 == 0) {
        r = raw_loop();
        u = our_loop();
      } else {
        u = our_loop();
        r = raw_loop();
      }
      raw = std::min(raw, r.seconds);
      ours = std::min(ours, u.seconds);
      round_ratios.push_back(u.seconds / r.seconds);
      raw_cpu.user_us += r.user_us / o.rounds;
      raw_cpu.system_us += r.system_us / o.rounds;
      our_cpu.user_us += u.user_us / o.rounds;
      our_cpu.system_us += u.system_us / o.rounds;
      STRATA_RETURN_IF_ERROR(failure);
      std::fill(data.begin(), data.end(), 1.0f);  // keep values finite
    }
    // A timing is only worth printing for right answers: one more call of
    // each side on data whose sum every element must equal, counted over
    // every rank.
    const auto expected = static_cast<float>(world * (world + 1) / 2);
    auto wrong_after = [&](auto&& one_call) -> long long {
      std::fill(data.begin(), data.end(), static_cast<float>(rank + 1));
      std::fill(result.begin(), result.end(), -1.0f);
      one_call();
      return std::count_if(out, out + count, [&](float v) { return v != expected; });
    };
    long long wrong = wrong_after(reference_call);
    Status checked;
    wrong += wrong_after(
        [&] { checked = ops->all_reduce({&buffer, 1}, {&out_buffer, 1}, ReduceOp::kSum, call); });
    STRATA_RETURN_IF_ERROR(checked);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      const double extra = (ours - raw) * 1e6;
      std::sort(round_ratios.begin(), round_ratios.end());
      const double median = round_ratios[round_ratios.size() / 2];
      std::printf("%12s %8d %12.2f %12.2f %10.2f %8.3f %8.3f %7lld",
                  format_size(bytes).c_str(), iterations, raw * 1e6, ours * 1e6, extra,
                  ours / raw, median, wrong);
      if (o.cpu) {
        std::printf(" %9.2f %9.2f %9.2f %9.2f", raw_cpu.user_us, raw_cpu.system_us,
                    our_cpu.user_us, our_cpu.system_us);
      }
      std::printf("\n");
      std::fflush(stdout);
      if (csv != nullptr) {
        std::fprintf(csv, "%llu,%d,%.3f,%.3f,%.3f,%.4f,%.4f,%lld",
                     static_cast<unsigned long long>(bytes), iterations, raw * 1e6, ours * 1e6,
                     extra, ours / raw, median, wrong);
        if (o.cpu) {
          std::fprintf(csv, ",%.3f,%.3f,%.3f,%.3f", raw_cpu.user_us, raw_cpu.system_us,
                       our_cpu.user_us, our_cpu.system_us);
        }
        std::fprintf(csv, "\n");
      }
    }
    if (wrong != 0) {
      return InternalError("all_reduce of " + format_size(bytes) + " gave " +
                           std::to_string(wrong) + " wrong element(s), Strata's and the " +
                           ref + " reference's together");
    }
  }
  if (csv != nullptr) std::fclose(csv);
  return Status::Ok();
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  strata::Options o;
  int exit_code = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if ((arg == "-b" || arg == "-e") && has_value) {
      auto size = strata::parse_size(argv[++i]);
      if (!size.ok()) {
        if (rank == 0) {
          std::fprintf(stderr, "strata-mpi-bench: %s\n", size.status().to_string().c_str());
        }
        exit_code = 2;
        break;
      }
      (arg == "-b" ? o.min_bytes : o.max_bytes) = *size;
    } else if (arg == "--rounds" && has_value) {
      o.rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--algorithm" && has_value) {
      o.algorithm = argv[++i];
    } else if (arg == "--out-of-place") {
      o.in_place = false;
    } else if (arg == "--csv" && has_value) {
      o.csv = argv[++i];
    } else if (arg == "--null") {
      o.null_comparison = true;
    } else if (arg == "--cpu") {
      o.cpu = true;
    } else if (arg == "--config" && has_value) {
      o.config = argv[++i];
    } else if (arg == "--reference" && has_value &&
               (std::string(argv[i + 1]) == "allreduce" || std::string(argv[i + 1]) == "p2p")) {
      o.p2p_reference = std::string(argv[++i]) == "p2p";
    } else {
      if (rank == 0) {
        std::fprintf(stderr, "usage: mpirun -np N strata-mpi-bench [-b SIZE] [-e SIZE] "
                             "[--rounds N] [--algorithm ID|auto] [--out-of-place] [--csv FILE]\n"
                             "       [--config FILE]  (e.g. plugins.options.mpi.ring_chunk_bytes;\n"
                             "                         default: $STRATA_CONFIG, else none)\n"
                             "       [--cpu]  (processor time per call, user and system)\n"
                             "       [--null]  (both sides the reference: the noise floor)\n"
                             "       [--reference allreduce|p2p]  (Strata's yardstick)\n");
      }
      exit_code = arg == "--help" ? 0 : 2;
      break;
    }
  }
  if (exit_code == 0) {
    strata::Status s = strata::run(o, rank, world);
    if (!s.ok()) {
      std::fprintf(stderr, "strata-mpi-bench (rank %d): %s\n", rank, s.to_string().c_str());
      exit_code = 1;
    }
  }
  MPI_Finalize();
  return exit_code;
}
