#include "tools/mpi_bench/memory_bound.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

namespace strata {

double bound_traffic_bytes(BenchOp op, uint64_t bytes, int world, bool in_place) {
  if (world < 2) return 0;
  const double s = static_cast<double>(bytes);
  const double p = world;
  switch (op) {
    // Reduce-scatter then all-gather through the segment, per rank: read
    // the input (S), publish the p-1 slices others reduce ((p-1)S/p
    // written), reduce its own slice from the segment ((p-1)S/p read),
    // write it to the segment and the output (2S/p), copy the p-1 other
    // reduced slices out ((p-1)S/p read, (p-1)S/p written).
    case BenchOp::kAllReduce: return (5 * p - 2) * s;
    // The root reads S and writes it to the segment, every other rank
    // reads S there and writes it to its output; out of place the root
    // also writes its own output.
    case BenchOp::kBroadcast: return (in_place ? 2 * p : 2 * p + 1) * s;
    // Each rank reads its S/p and writes it to the segment, then reads
    // the (p-1)S/p of the others there and writes them to its output; out
    // of place it also writes its own part to its output.
    case BenchOp::kAllGather: return (in_place ? 2 * p : 2 * p + 1) * s;
  }
  return 0;
}

const char* bound_formula(BenchOp op, bool in_place) {
  if (op == BenchOp::kAllReduce) return "(5p - 2) S";
  return in_place ? "2p S" : "(2p + 1) S";
}

double single_copy_traffic_bytes(BenchOp op, uint64_t bytes, int world, bool in_place) {
  if (world < 2) return 0;
  const double s = static_cast<double>(bytes);
  const double p = world;
  switch (op) {
    // Rank r reads slice r of every input (S/p each) and writes its
    // reduced slice into every output (S/p each).
    case BenchOp::kAllReduce: return 2 * p * s;
    // Every rank but the root reads S and writes it; out of place the root
    // copies its own too.
    case BenchOp::kBroadcast: return (in_place ? 2 * (p - 1) : 2 * p) * s;
    // Each rank reads the (p-1)S/p of the others and writes it; out of
    // place it copies its own S/p as well.
    case BenchOp::kAllGather: return (in_place ? 2 * (p - 1) : 2 * p) * s;
  }
  return 0;
}

const char* single_copy_formula(BenchOp op, bool in_place) {
  if (op == BenchOp::kAllReduce) return "2p S";
  return in_place ? "2(p - 1) S" : "2p S";
}

CopyBandwidth measure_copy_bandwidth(uint64_t bytes_per_rank, int repeats) {
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  auto src = std::make_unique<char[]>(bytes_per_rank);
  auto dst = std::make_unique<char[]>(bytes_per_rank);
  // Fault every page in before the timing, and differently each pass, so
  // no copy is of pages the kernel maps to the shared zero page.
  std::memset(src.get(), 1, bytes_per_rank);
  std::memset(dst.get(), 2, bytes_per_rank);
  CopyBandwidth best{0, bytes_per_rank, world};
  volatile char sink = 0;  // keeps the copies observable
  for (int pass = 0; pass < repeats; ++pass) {
    src[static_cast<uint64_t>(pass) % bytes_per_rank] = static_cast<char>(pass);
    MPI_Barrier(MPI_COMM_WORLD);
    // steady_clock is CLOCK_MONOTONIC, one clock for every process of the
    // host: the pass lasts from the first rank's start to the last one's end.
    using std::chrono::duration_cast;
    using std::chrono::nanoseconds;
    const double start = static_cast<double>(
        duration_cast<nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
    std::memcpy(dst.get(), src.get(), bytes_per_rank);
    const double end = static_cast<double>(
        duration_cast<nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
    sink = static_cast<char>(sink + dst[static_cast<uint64_t>(pass) % bytes_per_rank]);
    double first_start = 0, last_end = 0;
    MPI_Allreduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double seconds = std::max(last_end - first_start, 1.0) * 1e-9;
    const double moved = 2.0 * static_cast<double>(bytes_per_rank) * world;
    best.bytes_per_second = std::max(best.bytes_per_second, moved / seconds);
  }
  return best;
}

double bound_seconds(double traffic_bytes, const CopyBandwidth& copy) {
  if (traffic_bytes <= 0 || copy.bytes_per_second <= 0) return 0;
  return traffic_bytes / copy.bytes_per_second;
}

}  // namespace strata
