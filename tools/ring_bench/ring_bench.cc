// strata-ring-bench: grpc_ring's all-reduce against the references the
// field uses over plain TCP — Gloo's ring all-reduce and Open MPI — in one
// run. Launched by mpirun so all three share the processes, the buffers and
// the machine state:
//
//   mpirun -np 2 --mca btl self,tcp build/bin/strata-ring-bench [-b 1KiB] [-e 64MiB]
//          [--rounds 5] [--algorithm grpc_ring/all_reduce/ring] [--config FILE] [--csv FILE]
//          [--sides mpi,gloo,grpc_ring] [--keep-binding]
//
// The sweep, its figures and its CSV are tools/ring_bench/sweep.h's, shared
// with strata-gloo-anchor (Gloo alone, the anchor for the Gloo column). A
// side named twice in --sides is timed twice: the run's null comparison.
// mpirun's binding of each rank to a core is released (release_binding).
#include <mpi.h>
#include <sched.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/common/units.h"
#include "core/config/config_choice.h"
#include "core/runtime/runtime.h"
#include "tools/common/mpi_job_team.h"
#include "strata/sdk/job_token.h"
#include "tools/ring_bench/gloo_ring.h"
#include "tools/ring_bench/sweep.h"

namespace strata {
namespace {

struct Options {
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = uint64_t{64} << 20;
  int rounds = 5;
  std::string algorithm = "grpc_ring/all_reduce/ring";
  std::string config;
  std::string csv;
  std::vector<std::string> sides = {"mpi", "gloo", "grpc_ring"};
};

// mpirun binds each of 2 ranks to one core, and every thread of the rank
// inherits that core. Gloo hands each message from its device thread to the
// caller's thread, so both then share one core and every hand-off waits on
// the scheduler: Gloo ran 7-40x below its own speed here (issue 27,
// docs/performance/grpc_ring.md). A benchmark of libraries, not of
// mpirun's placement, lets every side's threads run on any CPU. Returns how
// many CPUs the rank was allowed before.
int release_binding() {
  cpu_set_t before;
  CPU_ZERO(&before);
  if (::sched_getaffinity(0, sizeof before, &before) != 0) return -1;
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < std::min(::get_nprocs(), CPU_SETSIZE); ++c) CPU_SET(c, &all);
  if (::sched_setaffinity(0, sizeof all, &all) != 0) return -1;
  return CPU_COUNT(&before);
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

// The ratio columns: grpc_ring over each reference, and a side repeated
// (gloo,gloo) over its first run, which is the null comparison.
std::vector<std::pair<size_t, size_t>> ratio_pairs(const std::vector<std::string>& sides) {
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t a = 0; a < sides.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      if (sides[a] == sides[b]) pairs.emplace_back(a, b);
    }
  }
  for (size_t a = 0; a < sides.size(); ++a) {
    if (sides[a] != "grpc_ring") continue;
    for (size_t b = 0; b < sides.size(); ++b) {
      if (sides[b] != "grpc_ring") pairs.emplace_back(a, b);
    }
  }
  return pairs;
}

// Repeated sides get a suffix in the table (gloo, gloo2).
std::vector<std::string> column_names(const std::vector<std::string>& sides) {
  std::vector<std::string> names;
  for (size_t i = 0; i < sides.size(); ++i) {
    const auto seen = std::count(sides.begin(), sides.begin() + i, sides[i]);
    names.push_back(seen == 0 ? sides[i] : sides[i] + std::to_string(seen + 1));
  }
  return names;
}

Status run(const Options& o, int rank, int world) {
  const auto uses = [&](const char* side) {
    return std::find(o.sides.begin(), o.sides.end(), side) != o.sides.end();
  };
  // One Gloo context per gloo column, so a null run compares two contexts.
  std::vector<std::unique_ptr<GlooRing>> gloo;
  std::shared_ptr<Runtime> runtime;
  std::optional<MpiJobTeam> team;
  if (uses("grpc_ring") || uses("gloo")) {
    STRATA_RETURN_IF_ERROR(share_job_token(rank));
    STRATA_ASSIGN_OR_RETURN(Config config, load_chosen_config(choose_config(o.config)));
    STRATA_ASSIGN_OR_RETURN(runtime, Runtime::create(config, RuntimeOptions{}));
    STRATA_ASSIGN_OR_RETURN(team, join_mpi_job(runtime, rank, world));
  }
  std::vector<GlooRing*> gloo_of_side(o.sides.size(), nullptr);
  for (size_t s = 0; s < o.sides.size(); ++s) {
    if (o.sides[s] != "gloo") continue;
    STRATA_ASSIGN_OR_RETURN(auto ring, GlooRing::connect(*team->store, rank, world, "127.0.0.1",
                                                         std::chrono::seconds(60),
                                                         "gloo" + std::to_string(s)));
    gloo_of_side[s] = ring.get();
    gloo.push_back(std::move(ring));
  }
  CallOptions call;
  call.algorithm = o.algorithm;

  SweepTable table(o.csv, world, column_names(o.sides), ratio_pairs(o.sides), rank == 0);
  table.print_header();
  for (uint64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    const uint64_t count = std::max<uint64_t>(bytes / 4, 1);
    std::vector<float> data(count, 1.0f);
    const Buffer buffer{data.data(), DType::kF32, count,
                        team ? team->devices[0] : strata_device_t{}};
    Status failure;
    auto keep_first = [&](Status s) {
      if (!s.ok() && failure.ok()) failure = std::move(s);
    };
    auto one_call = [&](size_t side) {
      if (gloo_of_side[side] != nullptr) {
        keep_first(gloo_of_side[side]->all_reduce(data.data(), data.data(), count));
      } else if (o.sides[side] == "mpi") {
        MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
      } else {
        keep_first(team->ops->all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kSum, call));
      }
    };
    double slowest = 0;
    for (size_t side = 0; side < o.sides.size(); ++side) {
      slowest = std::max(slowest, time_loop(3, [&] { one_call(side); }));
    }
    STRATA_RETURN_IF_ERROR(failure);
    SweepRow row(bytes, iterations_for(bytes, slowest), o.sides.size());
    for (int round = 0; round < o.rounds; ++round) {
      std::vector<double> took(o.sides.size());
      for (size_t k = 0; k < o.sides.size(); ++k) {
        const size_t side = (round + k) % o.sides.size();  // rotate who goes first
        took[side] = time_loop(row.iterations, [&] { one_call(side); });
        std::fill(data.begin(), data.end(), 1.0f);  // keep values finite
        STRATA_RETURN_IF_ERROR(failure);
      }
      row.add_round(took);
    }
    table.add(row);
  }
  return table.finish();
}

StatusOr<std::vector<std::string>> parse_sides(const std::string& text) {
  std::vector<std::string> sides;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    sides.push_back(text.substr(start, comma - start));
    if (sides.back() != "mpi" && sides.back() != "gloo" && sides.back() != "grpc_ring") {
      return InvalidArgumentError("--sides: '" + sides.back() +
                                  "' is none of mpi, gloo, grpc_ring");
    }
    start = comma + 1;
  }
  return sides;
}

int usage(int rank, int code) {
  if (rank == 0) {
    std::fprintf(code == 0 ? stdout : stderr,
                 "usage: mpirun -np N --mca btl self,tcp strata-ring-bench [-b SIZE] [-e SIZE]\n"
                 "       [--rounds N] [--algorithm ID] [--config FILE] [--csv FILE]\n"
                 "       [--sides mpi,gloo,grpc_ring]  (a side named twice: a null comparison)\n"
                 "       [--keep-binding]  (keep mpirun's binding of each rank to a core)\n"
                 "--config defaults to $STRATA_CONFIG, else none.\n");
  }
  return code;
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  // Before MPI_Init, so no thread of Open MPI's starts bound.
  bool keep_binding = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--keep-binding") keep_binding = true;
  }
  const int cpus_before = keep_binding ? 0 : strata::release_binding();
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (rank == 0) {
    if (keep_binding) {
      std::printf("# --keep-binding: each rank keeps the CPUs mpirun bound it to\n");
    } else if (cpus_before < 0) {
      std::printf("# could not release mpirun's binding (sched_setaffinity failed)\n");
    } else {
      std::printf("# mpirun's binding released (rank 0 was allowed %d of %d CPUs): every "
                  "side's threads run on any CPU\n", cpus_before, ::get_nprocs());
    }
  }
  strata::Options o;
  int exit_code = -1;
  for (int i = 1; i < argc && exit_code < 0; ++i) {
    const std::string arg = argv[i];
    if (arg == "--keep-binding") continue;
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
    } else if (arg == "--sides" && has_value) {
      auto sides = strata::parse_sides(argv[++i]);
      if (sides.ok()) {
        o.sides = *std::move(sides);
      } else {
        if (rank == 0) {
          std::fprintf(stderr, "strata-ring-bench: %s\n", sides.status().to_string().c_str());
        }
        exit_code = 2;
      }
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
