// strata-mpi-bench: a Strata collective against the same call in raw MPI,
// in one mpirun job. Every rank alternates, size by size, between a raw MPI
// loop (MPI_Allreduce, MPI_Bcast or MPI_Allgather for --op all_reduce,
// broadcast, all_gather; or the --reference below) and the same loop
// through CollectiveOps, with the algorithm forced to mpi/<op>/native unless
// --algorithm names another (shm/..., any plugin's: its library is loaded
// from the build's plugin folder by the id's prefix, or --plugin FILE).
// --buffers shm_host allocates every buffer, both sides', on the shm
// plugin's shm_host device type (shared memory), as the mapped algorithms
// need. The team forms from the mpi resolver and the job store. Same buffers,
// sizes and iteration counts; each side's time is the slowest rank's mean
// per call, best of --rounds rounds, so both see the same machine state;
// `ratio` compares the two bests, `median` is the median of the rounds' own
// ratios (each round times both sides back to back, in alternating order),
// the steadier figure on a VM whose speed drifts between rounds.
//
// Each side's busbw follows nccl-tests (size / time times 2(p-1)/p for
// all_reduce, (p-1)/p for all_gather, whose size is the whole gathered
// output, 1 for broadcast). %bound is the memory bound's time over the
// side's: the least bytes the op must move through memory between
// processes of one host, over a copy bandwidth measured at the start of
// the run with every rank copying at once (memory_bound.h; the formula is
// derived in docs/performance/shm.md). `ceiling` is a yardstick for busbw:
// every rank copying, at once, the same size its neighbour has just
// written (peer_copy.h); `cma` the same through
// the kernel's single copy (process_vm_readv, vader's large-message path),
// for reading vader's figures. The last lines judge issue 27's targets on
// the run (bench_targets.h), and say where a target lies above the ceiling.
//
// --cpu adds each side's processor time per call (user and system, mean
// over ranks and rounds, from getrusage), and with --with-null the
// reference's second loop's (again_usr, again_sys). With more ranks than
// cores the wall time measures how the scheduler shares the cores, and
// every rank spins in MPI while it waits: processor time then says which
// side burns more of it, and in the library or in the kernel (sched_yield).
//
// --reference p2p (all_reduce only) times, in place of MPI_Allreduce, a
// hand-written recursive doubling over the MPI calls the mpi plugin itself
// makes for small payloads (MPI_Irecv, MPI_Isend, MPI_Testall, a local
// sum): the difference to Strata is then the framework's layers alone, not
// the plugin's choice of MPI calls. Power-of-two teams only. Out of place
// it copies the input to the output first, which neither MPI_Allreduce nor
// the plugin does: a small-payload yardstick. Both sides' answers are
// checked (#wrong).
//
// --null times the reference on both sides: the ratios it prints are what
// the benchmark reads when there is no difference at all, the yardstick for
// how far one launch's row can be trusted (docs/performance/mpi.md).
// --with-null keeps the side and times the reference a second time in every
// round: a null ratio per size from the same launch (null_median_ratio),
// which python/strata/_noise_verdicts.py reads each cell against.
//
//   mpirun -np 2 build/bin/strata-mpi-bench [--op all_reduce|broadcast|all_gather]
//            [-b 8B] [-e 64MiB] [--out-of-place] [--csv FILE] [--config FILE] [--cpu]
//            [--algorithm ID|auto] [--plugin FILE] [--reference allreduce|p2p]
//            [--null | --with-null]
//            [--buffers host|shm_host]
//            [--copy-bytes 128MiB] [--rounds 3] [--iterations N | --max-iterations N]
//
// It links MPI itself (core never does), so it initialises MPI first and
// the plugin, finding MPI initialised, leaves init and finalize to it.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/common/units.h"
#include "core/config/config_choice.h"
#include "core/plugin/registry.h"
#include "core/runtime/runtime.h"
#include "tools/common/mpi_job_team.h"
#include "tools/mpi_bench/bench_collective.h"
#include "tools/mpi_bench/bench_loop.h"
#include "tools/mpi_bench/bench_output.h"
#include "tools/mpi_bench/bench_targets.h"
#include "tools/mpi_bench/memory_bound.h"
#include "tools/mpi_bench/peer_copy.h"

namespace strata {
namespace {

struct Options {
  BenchOp op = BenchOp::kAllReduce;
  uint64_t min_bytes = 8;
  uint64_t max_bytes = uint64_t{64} << 20;
  uint64_t copy_bytes = uint64_t{128} << 20;  // 4x this VM's 32 MiB L3, per rank
  int rounds = 3;
  int iterations = 0;  // per round and side; 0: iterations_for(size)
  int max_iterations = 0;  // caps iterations_for(size); 0: no cap
  std::string algorithm;  // empty: mpi/<op>/native
  std::string plugin;     // empty: from the algorithm's prefix
  std::string csv;
  std::string config;  // plugin options (plugins.options.mpi.*) to try
  std::string buffers = "host";  // or a device type to allocate them on
  bool in_place = true;
  bool cpu = false;
  bool p2p_reference = false;
  bool null_comparison = false;
  bool with_null = false;
};

// The mpi plugin always (its resolver forms the team), and the plugin that
// owns the forced algorithm: --plugin, else lib<prefix> beside it.
StatusOr<std::vector<std::filesystem::path>> plugin_files(const Options& o) {
  const std::string dir = STRATA_PLUGIN_DIR;
  std::vector<std::filesystem::path> files = {dir + "/libstrata_mpi.so"};
  std::string extra = o.plugin;
  const auto slash = o.algorithm.find('/');
  if (extra.empty() && slash != std::string::npos && o.algorithm.substr(0, slash) != "mpi") {
    extra = dir + "/libstrata_" + o.algorithm.substr(0, slash) + ".so";
  }
  if (!extra.empty()) files.push_back(extra);
  for (const auto& f : files) {
    if (!std::filesystem::exists(f)) {
      return NotFoundError("strata-mpi-bench: plugin library " + f.string() + " not found (for --algorithm " +
                           o.algorithm + "; is that plugin built in this tree? --plugin FILE names it)");
    }
  }
  return files;
}

Status run(const Options& o, int rank, int world) {
  // Checked before the team forms: that costs a rendezvous and MPI set-up.
  if (o.p2p_reference && (world & (world - 1)) != 0) {
    return InvalidArgumentError("--reference p2p needs a power-of-two number of ranks, not " +
                                std::to_string(world));
  }
  RuntimeOptions ro;
  STRATA_ASSIGN_OR_RETURN(ro.plugin_files, plugin_files(o));
  ro.discover_plugins = false;
  STRATA_ASSIGN_OR_RETURN(Config config, load_chosen_config(choose_config(o.config)));
  STRATA_ASSIGN_OR_RETURN(auto runtime, Runtime::create(config, ro));
  // Buffers on a device type (shm_host): the team's device is of that
  // type, and so is every buffer, the reference's included.
  const strata_device_type_t* memory = nullptr;
  if (o.buffers != "host") {
    const DeviceTypeEntry* type = runtime->registry().find_device_type(o.buffers);
    if (type == nullptr) {
      return NotFoundError("strata-mpi-bench: --buffers " + o.buffers +
                           ": no such device type among the loaded plugins' (shm_host comes "
                           "with the shm plugin: --algorithm shm/...)");
    }
    memory = &type->table;
  }
  STRATA_ASSIGN_OR_RETURN(
      MpiJobTeam team,
      join_mpi_job(runtime, rank, world, o.buffers == "host" ? "cpu" : o.buffers));
  CallOptions call;
  call.algorithm = o.algorithm == "auto" ? "" : o.algorithm;

  const CopyBandwidth copy = measure_copy_bandwidth(o.copy_bytes, 5);
  // Room for the largest call's size, rounded up to whole elements per rank.
  StatusOr<PeerCopyProbe> ceiling = PeerCopyProbe::create(o.max_bytes + 64ull * world);
  // The reference's columns are named after it: `mpi` or `p2p`. Under
  // --null the other side is the reference again (`mpi_again`), so a CSV
  // of a control run cannot pass for a measurement of Strata.
  OutputNames names;
  names.reference = o.p2p_reference ? "p2p" : "mpi";
  names.side = o.null_comparison ? names.reference + "_again" : "strata";
  names.side_short = o.null_comparison ? "again" : "str";
  names.with_null = o.with_null;
  BenchOutput output(names, o.cpu, rank == 0);
  if (rank == 0) {
    const char* btl = std::getenv("OMPI_MCA_btl");
    const std::string what =
        std::to_string(world) + " ranks, " + bench_op_name(o.op) + " " + bench_op_data(o.op) +
        ", " + (o.in_place ? "in place" : "out of place") + ", btl " +
        (btl != nullptr ? btl : "Open MPI's choice") + ", buffers " + o.buffers + ": " +
        mpi_reference_name(o.op, o.p2p_reference);
    if (o.null_comparison) {
      output.comment(what + " vs itself (--null: the benchmark's own noise; #wrong still checks " +
                     o.algorithm + ")");
    } else {
      output.comment(what + " vs CollectiveOps::" + bench_op_name(o.op) + " (" + o.algorithm + ")");
    }
    if (o.with_null) {
      output.comment("null: every round also times " + names.reference +
                     " again; null = median over rounds of that time / " + names.reference +
                     "'s, the noise each ratio is read against");
    }
    output.comment(copy_bandwidth_line(copy, "at the start"));
    output.comment(std::string("memory bound: ") + bound_formula(o.op, o.in_place) +
                   " bytes / copy bandwidth (docs/performance/shm.md); single-copy bound: " +
                   single_copy_formula(o.op, o.in_place) + " bytes / copy bandwidth");
    output.comment(ceiling.ok() ? "ceiling: busbw when every rank copies the size its neighbour "
                                  "just wrote, best of 5, from 64 KiB (peer_copy.h); cma: the "
                                  "same through process_vm_readv, vader's single copy"
                                : "no ceiling: " + ceiling.status().to_string());
  }
  // Every rank learns whether rank 0 could open the CSV: one that went on
  // alone would wait for the others forever.
  Status csv_opened = output.open_csv(o.csv);
  int csv_ok = csv_opened.ok() ? 1 : 0;
  MPI_Bcast(&csv_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  STRATA_RETURN_IF_ERROR(csv_opened);
  if (csv_ok == 0) return UnavailableError("strata-mpi-bench: rank 0 could not open " + o.csv);
  output.header();
  std::vector<MeasuredRow> measured;
  for (uint64_t requested = o.min_bytes; requested <= o.max_bytes; requested *= 2) {
    BenchShape shape{o.op,  requested, o.in_place, o.p2p_reference,
                     rank,  world,     team.devices[0], memory};
    STRATA_ASSIGN_OR_RETURN(auto collective, make_bench_collective(shape));
    int iterations = o.iterations > 0 ? o.iterations : iterations_for(collective->bytes());
    if (o.max_iterations > 0) iterations = std::min(iterations, o.max_iterations);
    STRATA_ASSIGN_OR_RETURN(SizeTiming timing,
                            time_both_sides(*collective, *team.ops, call, o.rounds, iterations,
                                            o.null_comparison, o.with_null));
    // A timing is only worth printing for right answers: one more call of
    // each side on inputs whose answer is known, counted over every rank.
    long long wrong = collective->wrong_after([&] { collective->call_reference(); });
    Status checked;
    wrong += collective->wrong_after([&] { checked = collective->call_strata(*team.ops, call); });
    long long counts[2] = {wrong, checked.ok() ? 0 : 1};  // agreed, so no rank waits alone
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    STRATA_RETURN_IF_ERROR(checked);
    if (counts[1] != 0) return UnavailableError("strata-mpi-bench: another rank's call failed");
    wrong = counts[0];
    SizeReport report;
    report.bytes = collective->bytes();
    report.timing = timing;
    report.wrong = wrong;
    report.bus_factor = bus_factor(o.op, world);
    report.copy = copy;
    report.bound_seconds =
        bound_seconds(bound_traffic_bytes(o.op, collective->bytes(), world, o.in_place), copy);
    if (ceiling.ok()) {
      report.ceiling_bytes_per_second = ceiling->measure(collective->bytes(), 5);
      report.cma_bytes_per_second = ceiling->measure_cma(collective->bytes(), 5);
    }
    output.row(report);
    measured.push_back(
        {requested, timing.reference.seconds, timing.side.seconds, timing.median_ratio,
         report.bound_seconds, report.bus_factor * static_cast<double>(collective->bytes()),
         report.ceiling_bytes_per_second,
         bound_seconds(
             single_copy_traffic_bytes(o.op, collective->bytes(), world, o.in_place), copy)});
    if (wrong != 0) {
      return InternalError(std::string(bench_op_name(o.op)) + " of " +
                           format_size(collective->bytes()) + " gave " + std::to_string(wrong) +
                           " wrong element(s), " + o.algorithm + "'s and the " + names.reference +
                           " reference's together");
    }
  }
  // The host's speed drifts: a second copy measurement says by how much
  // over this run (the rows' bound used the first).
  const CopyBandwidth copy_after = measure_copy_bandwidth(o.copy_bytes, 5);
  // The bound's target takes the higher of the two: the tighter bound.
  const double tighter = std::max(copy.bytes_per_second, copy_after.bytes_per_second);
  for (auto& m : measured) {
    m.bound_seconds *= copy.bytes_per_second / tighter;
    m.single_copy_seconds *= copy.bytes_per_second / tighter;
  }
  if (rank == 0) {
    output.comment(copy_bandwidth_line(copy_after, "at the end"));
    for (const auto& v : judge_targets(measured, names.side, names.reference)) {
      output.line(verdict_line(v));
    }
    if (std::string line = ceiling_line(measured, names.reference); !line.empty()) {
      output.line(line);
    }
    if (std::string line = bound_line(measured, names.reference); !line.empty()) {
      output.line(line);
    }
    if (ceiling.ok() && !ceiling->cma_refusal().empty()) {
      output.comment("cma: refused (" + ceiling->cma_refusal() + ")");
    }
  }
  return output.close();
}

bool parse_size_into(const char* text, uint64_t& into, int rank) {
  auto size = parse_size(text);
  if (!size.ok()) {
    if (rank == 0) std::fprintf(stderr, "strata-mpi-bench: %s\n", size.status().to_string().c_str());
    return false;
  }
  into = *size;
  return true;
}

void usage(int rank) {
  if (rank != 0) return;
  std::fprintf(stderr,
               "usage: mpirun -np N strata-mpi-bench [--op all_reduce|broadcast|all_gather]\n"
               "       [-b SIZE] [-e SIZE] [--rounds N] [--out-of-place] [--csv FILE]\n"
               "       [--iterations N]  (calls per round and side; default ~256 MiB worth)\n"
               "       [--max-iterations N]  (at most N of those: quick runs on a loaded host)\n"
               "       [--algorithm ID|auto]  (default mpi/<op>/native)\n"
               "       [--plugin FILE]  (the algorithm's plugin, if not lib/strata/plugins/"
               "libstrata_<prefix>.so)\n"
               "       [--buffers host|TYPE]  (allocate every buffer on device type TYPE,\n"
               "                               e.g. shm_host for shm/<op>/mapped)\n"
               "       [--config FILE]  (e.g. plugins.options.mpi.ring_chunk_bytes;\n"
               "                         default: $STRATA_CONFIG, else none)\n"
               "       [--copy-bytes SIZE]  (per rank, for the copy bandwidth; default 128MiB)\n"
               "       [--cpu]  (processor time per call, user and system; the null loop's too)\n"
               "       [--null]  (both sides the reference: the noise floor)\n"
               "       [--with-null]  (each round also times the reference again: a null\n"
               "                       ratio per size, in the same launch)\n"
               "       [--reference allreduce|p2p]  (all_reduce's yardstick)\n");
}

// 0: run; otherwise the exit code.
int parse_options(int argc, char** argv, int rank, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    const std::string value = has_value ? argv[i + 1] : "";
    if ((arg == "-b" || arg == "-e") && has_value) {
      if (!parse_size_into(argv[++i], arg == "-b" ? o.min_bytes : o.max_bytes, rank)) return 2;
    } else if (arg == "--copy-bytes" && has_value) {
      if (!parse_size_into(argv[++i], o.copy_bytes, rank)) return 2;
      o.copy_bytes = std::max<uint64_t>(o.copy_bytes, 4096);
    } else if (arg == "--op" && has_value && parse_bench_op(value)) {
      o.op = *parse_bench_op(argv[++i]);
    } else if (arg == "--rounds" && has_value) {
      o.rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--iterations" && has_value) {
      o.iterations = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--max-iterations" && has_value) {
      o.max_iterations = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--algorithm" && has_value) {
      o.algorithm = argv[++i];
    } else if (arg == "--buffers" && has_value) {
      o.buffers = argv[++i];
    } else if (arg == "--plugin" && has_value) {
      o.plugin = argv[++i];
    } else if (arg == "--out-of-place") {
      o.in_place = false;
    } else if (arg == "--csv" && has_value) {
      o.csv = argv[++i];
    } else if (arg == "--null") {
      o.null_comparison = true;
    } else if (arg == "--with-null") {
      o.with_null = true;
    } else if (arg == "--cpu") {
      o.cpu = true;
    } else if (arg == "--config" && has_value) {
      o.config = argv[++i];
    } else if (arg == "--reference" && has_value && (value == "allreduce" || value == "p2p")) {
      o.p2p_reference = std::string(argv[++i]) == "p2p";
    } else {
      usage(rank);
      return arg == "--help" ? -1 : 2;
    }
  }
  if (o.min_bytes == 0 || o.min_bytes > o.max_bytes) {
    if (rank == 0) std::fprintf(stderr, "strata-mpi-bench: -b must be at least 1 B and at most -e\n");
    return 2;
  }
  if (o.null_comparison && o.with_null) {
    if (rank == 0) {
      std::fprintf(stderr, "strata-mpi-bench: --null and --with-null together time the "
                           "reference against itself twice; give one\n");
    }
    return 2;
  }
  if (o.algorithm.empty()) o.algorithm = std::string("mpi/") + bench_op_name(o.op) + "/native";
  return 0;
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  strata::Options o;
  int exit_code = strata::parse_options(argc, argv, rank, o);
  if (exit_code == 0) {
    strata::Status s = strata::run(o, rank, world);
    if (!s.ok()) {
      std::fprintf(stderr, "strata-mpi-bench (rank %d): %s\n", rank, s.to_string().c_str());
      exit_code = 1;
    }
  }
  MPI_Finalize();
  return exit_code < 0 ? 0 : exit_code;
}
