// Base of every mpi algorithm: scope CROSS_PROCESS, the checks every call
// shares (one host-readable buffer per process, MPI's int counts, a dtype
// this build knows), the team's communicator, and the alpha-beta cost model
// AUTO ranks them by.
#ifndef STRATA_PLUGINS_MPI_MPI_ALGORITHM_H_
#define STRATA_PLUGINS_MPI_MPI_ALGORITHM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "mpi_team.h"
#include "strata/sdk/algorithm.h"

namespace strata::mpi {

// How all_reduce runs (plugin option `all_reduce`, README.md).
enum class AllReduceSchedule {
  kAuto,               // all_reduce_schedule() below
  kMpi,                // MPI_Iallreduce: for MPIs that offload it (HCOLL, UCC)
  kRecursiveDoubling,  // always
  kRing,               // always
  kHalvingDoubling,    // always
};

// The plugin's options (`plugins: {options: {mpi: {...}}}`), read once at
// registration so that every rank with the same config decides alike.
struct MpiOptions {
  AllReduceSchedule all_reduce = AllReduceSchedule::kAuto;
  uint64_t ring_bytes = 64 * 1024;  // auto: ring from this many bytes per process
  // auto: on teams of 4, 8, 16... processes, halving-doubling instead of the
  // ring from ring_bytes up to this (0: never). Its 2 log2(p) steps beat the
  // ring's 2(p-1) where a step costs more than its bytes; from 2 MiB the
  // ring's neighbour-only traffic won (4 ranks, docs/performance/mpi_tuning.md).
  uint64_t halving_doubling_bytes = 2 * 1024 * 1024;
  // The largest payload the transport sends eagerly, in one copy with no
  // handshake; a larger one waits a round trip for the receiver (Open MPI's
  // rendezvous). Unset: the team's own (Comm::eager_bytes, read from Open
  // MPI's shared-memory transport, 4096 - 64 by default); set, it wins.
  std::optional<uint64_t> eager_bytes;
  // The ring's reduce-scatter can move blocks in chunks this big, the next
  // chunk posted while this one is reduced (0: whole blocks). Whole blocks
  // by default: over shared memory Open MPI copies a message in one
  // single-copy transfer, and chunks only added round trips (README.md).
  uint64_t ring_chunk_bytes = 0;
  double alpha = 2e-6;              // seconds per message (latency)
  double beta = 1.0 / 4e9;          // seconds per byte on the wire
  double gamma = 1.0 / 8e9;         // seconds per byte reduced

  // Throws sdk::InvalidArgument naming the option and what it expects.
  static MpiOptions from_host();
};

// The plan `auto` gives an all_reduce of `bytes` per process on `p`
// processes: the ring from ring_bytes; below that recursive doubling, whose
// every message is the whole payload, except on two processes where the
// payload just misses the eager limit and the ring's halves do not: there
// the handshake cost more than the ring's second step (4 KiB: 7.8 us by
// recursive doubling, 3.2 us by the ring, Open MPI's MPI_Allreduce 2.6 us).
// With 3 and 4 processes the ring's 2(p-1) steps lost to recursive
// doubling's handshakes (4 KiB, 4 ranks: 88 us against 53), so the rule
// stops at pairs. From ring_bytes, teams of a power of two above 2 take
// halving-doubling below halving_doubling_bytes.
// `team_eager_bytes` is the team's limit (Comm::eager_bytes, 0: unknown),
// used unless the option sets one.
AllReduceSchedule all_reduce_schedule(const MpiOptions& options, uint64_t bytes, int p,
                                      uint64_t team_eager_bytes);

class MpiAlgorithm : public sdk::Algorithm {
 public:
  MpiAlgorithm(strata_op_t op, std::string description, const MpiOptions& options);

  std::optional<std::string> decline(const strata_call_desc_t& call) const final;
  std::optional<double> estimate(const strata_call_desc_t& call) const final;
  std::unique_ptr<sdk::TeamState> create_team(const strata_team_desc_t& team) final;

 protected:
  // Seconds for `bytes` (the call's per-replica payload, the larger side
  // for all_gather and reduce_scatter) on `p` processes.
  virtual double cost(const strata_call_desc_t& call, double bytes, int p) const = 0;

  static Comm& comm(sdk::TeamState* state) { return static_cast<MpiTeam*>(state)->comm(); }
  const MpiOptions& options() const { return options_; }

  // Alpha-beta pieces.
  double message(double bytes) const { return options_.alpha + bytes * options_.beta; }
  double reduced(double bytes) const { return bytes * options_.gamma; }
  static int log2_ceil(int p);

 private:
  MpiOptions options_;
};

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_MPI_ALGORITHM_H_
