// strata-ring-bench: grpc_ring's all-reduce against the references the
// field uses over plain TCP — Gloo's ring all-reduce and Open MPI — in one
// run. Launched by mpirun so all three share the processes, the buffers and
// the machine state:
//
//   mpirun -np 2 --mca btl self,tcp build/bin/strata-ring-bench [-b 1KiB] [-e 64MiB]
//          [--rounds 5] [--algorithm grpc_ring/all_reduce/ring] [--config FILE] [--csv FILE]
//
// Each size runs every side --rounds times, rotating which side goes first;
// a side's time is the slowest rank's mean per call. busbw follows
// nccl-tests (algbw * 2(n-1)/n). The ratio columns are medians of the
// rounds' own ratios (each round times all sides back to back), the figure
// that survives a VM whose speed drifts; the busbw columns are each side's
// best round.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/common/units.h"
#include "core/config/config_choice.h"
#include "core/runtime/runtime.h"
#include "tools/common/mpi_job_team.h"
#include "strata/sdk/job_token.h"
#include "tools/ring_bench/gloo_ring.h"

namespace strata {
namespace {

struct Options {
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = uint64_t{64} << 20;
  int rounds = 5;
  std::string algorithm = "grpc_ring/all_reduce/ring";
  std::string config;
  std::string csv;
};

enum Side { kMpi = 0, kGloo = 1, kStrata = 2, kSides = 3 };
constexpr std::array<const char*, kSides> kSideNames = {"mpi", "gloo", "strata"};

int iterations_for(uint64_t bytes) {
  // ~128 MiB per round and side: long enough to average out scheduler
  // noise, short enough that a 64 MiB sweep of three sides stays minutes.
  const uint64_t n = (uint64_t{128} << 20) / std::max<uint64_t>(bytes, 8192);
  return static_cast<int>(std::clamp<uint64_t>(n, 3, 5000));
}

template <class Body>
double time_loop(int iterations, Body&& body) {
  for (int i = 0; i < std::min(iterations, 10); ++i) body();
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) body();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  double mine = took.count() / iterations, worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

// grpc_ring admits only members of the job; under mpirun nobody handed the
// ranks a token, so rank 0 makes one and MPI carries it to the others.
Status share_job_token(int rank) {
  sdk::JobToken token;
  std::string error;
  if (!sdk::load_job_token("", &token, &error)) return PermissionDeniedError(error);
  int have = token.value.empty() ? 0 : 1;
  MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (have != 0) return Status::Ok();
  std::string fresh = rank == 0 ? sdk::generate_job_token() : std::string(64, ' ');
  if (fresh.size() != 64) return InternalError("the kernel gave no random bytes for a job token");
  MPI_Bcast(fresh.data(), 64, MPI_CHAR, 0, MPI_COMM_WORLD);
  ::setenv(sdk::kJobTokenEnv, fresh.c_str(), 1);
  return Status::Ok();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Status run(const Options& o, int rank, int world) {
  STRATA_RETURN_IF_ERROR(share_job_token(rank));
  STRATA_ASSIGN_OR_RETURN(Config config, load_chosen_config(choose_config(o.config)));
  STRATA_ASSIGN_OR_RETURN(auto runtime, Runtime::create(config, RuntimeOptions{}));
  STRATA_ASSIGN_OR_RETURN(MpiJobTeam team, join_mpi_job(runtime, rank, world));
  const auto& devices = team.devices;
  auto& ops = team.ops;
  STRATA_ASSIGN_OR_RETURN(auto gloo, GlooRing::connect(*team.store, rank, world, "127.0.0.1",
                                                       std::chrono::seconds(60)));
  CallOptions call;
  call.algorithm = o.algorithm;

  std::FILE* csv = nullptr;
  if (rank == 0) {
    std::printf("# %d ranks, f32 sum in place; busbw GB/s (best round); ratios: median of rounds\n",
                world);
    std::printf("%10s %6s %10s %10s %10s %12s %12s\n", "size", "iters", "mpi", "gloo", "strata",
                "strata/gloo", "strata/mpi");
    if (!o.csv.empty() && (csv = std::fopen(o.csv.c_str(), "w")) != nullptr) {
      std::fprintf(csv, "bytes,iterations,mpi_busbw,gloo_busbw,strata_busbw,"
                        "strata_over_gloo,strata_over_mpi\n");
    }
  }
  const double bus_factor = world > 1 ? 2.0 * (world - 1) / world : 1.0;
  for (uint64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    const uint64_t count = std::max<uint64_t>(bytes / 4, 1);
    std::vector<float> data(count, 1.0f);
    const Buffer buffer{data.data(), DType::kF32, count, devices[0]};
    Status failure;
    auto keep_first = [&](Status s) {
      if (!s.ok() && failure.ok()) failure = std::move(s);
    };
    auto one_call = [&](int side) {
      switch (side) {
        case kMpi:
          MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                        MPI_COMM_WORLD);
          break;
        case kGloo:
          keep_first(gloo->all_reduce(data.data(), data.data(), count));
          break;
        default:
          keep_first(ops->all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kSum, call));
      }
    };
    // A side that is far slower at this size (Gloo's small messages can wait
    // out TCP's delayed ACKs) would stretch the sweep to hours: cap every
    // side's round at ~0.2 s of the slowest side's calls.
    double slowest = 0;
    for (int side = 0; side < kSides; ++side) {
      slowest = std::max(slowest, time_loop(3, [&] { one_call(side); }));
    }
    STRATA_RETURN_IF_ERROR(failure);
    const int iterations = std::clamp(static_cast<int>(0.2 / std::max(slowest, 1e-9)), 3,
                                      iterations_for(bytes));
    std::array<double, kSides> best{1e30, 1e30, 1e30};
    std::vector<double> over_gloo, over_mpi;
    for (int round = 0; round < o.rounds; ++round) {
      std::array<double, kSides> took{};
      for (int k = 0; k < kSides; ++k) {
        const int side = (round + k) % kSides;  // rotate who goes first
        took[side] = time_loop(iterations, [&] { one_call(side); });
        best[side] = std::min(best[side], took[side]);
        std::fill(data.begin(), data.end(), 1.0f);  // keep values finite
        STRATA_RETURN_IF_ERROR(failure);
      }
      over_gloo.push_back(took[kGloo] / took[kStrata]);  // busbw ratio = inverse time ratio
      over_mpi.push_back(took[kMpi] / took[kStrata]);
    }
    if (rank != 0) continue;
    auto busbw = [&](int side) { return bytes / best[side] * bus_factor / 1e9; };
    std::printf("%10s %6d %10.3f %10.3f %10.3f %12.3f %12.3f\n", format_size(bytes).c_str(),
                iterations, busbw(kMpi), busbw(kGloo), busbw(kStrata), median(over_gloo),
                median(over_mpi));
    std::fflush(stdout);
    if (csv != nullptr) {
      std::fprintf(csv, "%llu,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n",
                   static_cast<unsigned long long>(bytes), iterations, busbw(kMpi),
                   busbw(kGloo), busbw(kStrata), median(over_gloo), median(over_mpi));
    }
  }
  if (csv != nullptr) std::fclose(csv);
  return Status::Ok();
}

int usage(int rank, int code) {
  if (rank == 0) {
    std::fprintf(code == 0 ? stdout : stderr,
                 "usage: mpirun -np N --mca btl self,tcp strata-ring-bench [-b SIZE] [-e SIZE]\n"
                 "       [--rounds N] [--algorithm ID] [--config FILE] [--csv FILE]\n"
                 "--config defaults to $STRATA_CONFIG, else none.\n");
  }
  return code;
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  strata::Options o;
  int exit_code = -1;
  for (int i = 1; i < argc && exit_code < 0; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if ((arg == "-b" || arg == "-e") && has_value) {
      auto size = strata::parse_size(argv[++i]);
      if (size.ok()) {
        (arg == "-b" ? o.min_bytes : o.max_bytes) = *size;
      } else {
        if (rank == 0) std::fprintf(stderr, "strata-ring-bench: %s\n", size.status().to_string().c_str());
        exit_code = 2;
      }
    } else if (arg == "--rounds" && has_value) {
      o.rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--algorithm" && has_value) {
      o.algorithm = argv[++i];
    } else if (arg == "--config" && has_value) {
      o.config = argv[++i];
    } else if (arg == "--csv" && has_value) {
      o.csv = argv[++i];
    } else {
      exit_code = strata::usage(rank, arg == "--help" ? 0 : 2);
    }
  }
  if (exit_code < 0) {
    strata::Status s = strata::run(o, rank, world);
    if (!s.ok()) std::fprintf(stderr, "strata-ring-bench (rank %d): %s\n", rank, s.to_string().c_str());
    exit_code = s.ok() ? 0 : 1;
  }
  MPI_Finalize();
  return exit_code;
}
