#include "tools/mpi_bench/peer_copy.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace strata {
namespace {

double steady_ns() {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

}  // namespace

StatusOr<PeerCopyProbe> PeerCopyProbe::create(uint64_t max_bytes) {
  PeerCopyProbe probe;
  probe.max_bytes_ = max_bytes;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &probe.host_);
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_size(probe.host_, &probe.ranks_);
  if (probe.ranks_ != world) {
    return FailedPreconditionError("strata-mpi-bench: the copy ceiling needs every rank on one "
                                   "host; MPI_COMM_TYPE_SHARED holds " +
                                   std::to_string(probe.ranks_) + " of " + std::to_string(world));
  }
  int rank = 0;
  MPI_Comm_rank(probe.host_, &rank);
  void* base = nullptr;
  if (MPI_Win_allocate_shared(static_cast<MPI_Aint>(max_bytes), 1, MPI_INFO_NULL, probe.host_,
                              &base, &probe.window_) != MPI_SUCCESS) {
    return UnavailableError("strata-mpi-bench: MPI_Win_allocate_shared of " +
                            std::to_string(max_bytes) + " bytes per rank failed");
  }
  probe.own_ = static_cast<char*>(base);
  MPI_Aint size = 0;
  int unit = 1;
  void* neighbour = nullptr;
  MPI_Win_shared_query(probe.window_, (rank + 1) % probe.ranks_, &size, &unit, &neighbour);
  probe.neighbour_ = static_cast<char*>(neighbour);
  probe.private_ = static_cast<char*>(std::malloc(std::max<uint64_t>(max_bytes, 1)));
  probe.landing_ = static_cast<char*>(std::malloc(std::max<uint64_t>(max_bytes, 1)));
  if (probe.private_ == nullptr || probe.landing_ == nullptr) {
    return UnavailableError("strata-mpi-bench: out of memory");
  }
  // Where each rank's private buffer lives, for its neighbour's CMA reads.
  const uint64_t mine[2] = {static_cast<uint64_t>(::getpid()),
                            reinterpret_cast<uintptr_t>(probe.private_)};
  std::vector<uint64_t> all(2 * static_cast<size_t>(probe.ranks_));
  MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, probe.host_);
  const size_t next = 2 * static_cast<size_t>((rank + 1) % probe.ranks_);
  probe.neighbour_pid_ = static_cast<pid_t>(all[next]);
  probe.neighbour_private_ = reinterpret_cast<void*>(static_cast<uintptr_t>(all[next + 1]));
  // Fault every page in before any pass is timed.
  std::memset(probe.own_, 1, max_bytes);
  std::memset(probe.private_, 2, max_bytes);
  std::memset(probe.landing_, 4, max_bytes);
  MPI_Barrier(probe.host_);
  return probe;
}

PeerCopyProbe::PeerCopyProbe(PeerCopyProbe&& other) noexcept
    : window_(std::exchange(other.window_, MPI_WIN_NULL)),
      host_(std::exchange(other.host_, MPI_COMM_NULL)),
      own_(other.own_), neighbour_(other.neighbour_),
      private_(std::exchange(other.private_, nullptr)),
      landing_(std::exchange(other.landing_, nullptr)), neighbour_pid_(other.neighbour_pid_),
      neighbour_private_(other.neighbour_private_), cma_refusal_(std::move(other.cma_refusal_)),
      max_bytes_(other.max_bytes_), ranks_(other.ranks_) {}

PeerCopyProbe::~PeerCopyProbe() {
  std::free(private_);
  std::free(landing_);
  if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
  if (host_ != MPI_COMM_NULL) MPI_Comm_free(&host_);
}

template <class Prepare, class Copy>
double PeerCopyProbe::timed(uint64_t bytes, int repeats, Prepare prepare, Copy copy) {
  double best = 0;
  for (int pass = 0; pass < repeats; ++pass) {
    prepare(pass);
    MPI_Win_sync(window_);
    MPI_Barrier(host_);
    MPI_Win_sync(window_);
    const double start = steady_ns();
    const bool copied = copy();
    const double end = steady_ns();
    double first_start = 0, last_end = 0;
    int all_copied = 0;
    int ok = copied ? 1 : 0;
    MPI_Allreduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, host_);
    MPI_Allreduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, host_);
    MPI_Allreduce(&ok, &all_copied, 1, MPI_INT, MPI_MIN, host_);
    if (all_copied == 0) return 0;
    const double seconds = std::max(last_end - first_start, 1.0) * 1e-9;
    best = std::max(best, static_cast<double>(bytes) / seconds);
  }
  return best;
}

double PeerCopyProbe::measure(uint64_t bytes, int repeats) {
  bytes = std::min(bytes, max_bytes_);
  if (bytes < kSmallest || ranks_ < 2) return 0;
  // Written just now by its owner, as a peer's staged input or reduced
  // slice is: in the writer's cache where it fits, else in memory.
  return timed(
      bytes, repeats, [&](int pass) { std::memset(own_, 3 + pass, bytes); },
      [&] {
        std::memcpy(private_, neighbour_, bytes);
        return true;
      });
}

double PeerCopyProbe::measure_cma(uint64_t bytes, int repeats) {
  bytes = std::min(bytes, max_bytes_);
  if (bytes < kSmallest || ranks_ < 2) return 0;
  int error = 0;
  const double rate = timed(
      bytes, repeats, [&](int pass) { std::memset(private_, 7 + pass, bytes); },
      [&] {
        // One call moves at most the kernel's limit per call; loop as vader does.
        uint64_t done = 0;
        while (done < bytes) {
          iovec local{landing_ + done, bytes - done};
          iovec remote{static_cast<char*>(neighbour_private_) + done, bytes - done};
          const ssize_t n = ::process_vm_readv(neighbour_pid_, &local, 1, &remote, 1, 0);
          if (n <= 0) {
            error = n < 0 ? errno : EIO;
            return false;
          }
          done += static_cast<uint64_t>(n);
        }
        return true;
      });
  if (rate == 0 && cma_refusal_.empty()) {
    cma_refusal_ = error != 0 ? std::string("process_vm_readv: ") + std::strerror(error)
                              : "another rank's process_vm_readv failed";
  }
  return rate;
}

}  // namespace strata
