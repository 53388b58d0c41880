// all_reduce as a plan of non-blocking point-to-point steps, advanced by
// test(): recursive doubling for small payloads, ring (reduce-scatter then
// all-gather) or halving-doubling for large ones. The plans are in
// p2p_plans.cc, the operation that runs them in p2p_schedule.cc.
//
// Why not MPI_Iallreduce: in Open MPI 4 it runs on libnbc, which builds a
// schedule per call and, for two processes, reduces to one rank and
// broadcasts back. On this project's reference machine that cost 2.5-4 us
// more than MPI_Allreduce at 8 bytes under load (0.65 us quiet) and 30-35%
// more at 1 MiB (README.md, "Performance"), while a plan of
// MPI_Isend/MPI_Irecv pairs matches the blocking call (beats it at 1 MiB)
// and stays non-blocking, so core keeps its deadline. Float SUM and PROD
// reduce in p2p_schedule.cc's vector loops; the rest use MPI_Reduce_local
// with mpi_types.h's operators: Open MPI's vectorised ones ran 3-6x faster
// here than the SDK's generic host kernel.
#ifndef STRATA_PLUGINS_MPI_P2P_SCHEDULE_H_
#define STRATA_PLUGINS_MPI_P2P_SCHEDULE_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mpi_operation.h"

namespace strata::mpi {

// One step: post at most one receive and one send, wait for both, then run
// at most one local reduction dst = a (op) b. `b` is always the plan's
// scratch; `a` may alias dst.
struct Step {
  int recv_from = -1;
  void* recv_buf = nullptr;
  int recv_bytes = 0;
  int send_to = -1;
  const void* send_buf = nullptr;
  int send_bytes = 0;
  void* dst = nullptr;  // no reduction when null
  const void* a = nullptr;
  void* b = nullptr;
  uint64_t count = 0;
  strata_redop_t op = STRATA_SUM;  // MEAN divides by the team size
};

struct PlanInput {
  int rank = 0;
  int size = 0;
  const void* in = nullptr;
  void* out = nullptr;  // may equal in
  void* tmp = nullptr;  // scratch_bytes(...) bytes
  uint64_t count = 0;
  size_t elem = 0;
  strata_redop_t op = STRATA_SUM;
  uint64_t chunk_elements = 0;  // ring: a block travels in chunks of this many (0: whole)
};

// Both replace `steps` with the plan (reusing its capacity: a team keeps one
// vector for all its calls, so a call allocates nothing).
//
// Folds the ranks above the largest power of two into their neighbours,
// exchanges whole buffers log2(p) times, and sends the folded ranks the
// result. Scratch: the whole buffer.
void plan_recursive_doubling(const PlanInput& in, std::vector<Step>& steps);
// 2(p-1) rounds of one block (count/p elements) each, the reduce-scatter
// rounds in chunks; each rank computes one block's final value and every
// rank receives it, so results are bitwise equal everywhere. Scratch: two
// chunks when a block has several (they alternate), else one block.
void plan_ring(const PlanInput& in, std::vector<Step>& steps);
// Rabenseifner's: reduce-scatter by recursive halving, then all-gather by
// recursive doubling, among the largest power of two of ranks (the others
// folded in as in recursive doubling). The ring's bytes in 2 log2(p) steps
// instead of 2(p-1): fewer waits for a peer where ranks share cores or a
// message costs more than its bytes. Scratch: the whole buffer.
void plan_halving_doubling(const PlanInput& in, std::vector<Step>& steps);
uint64_t ring_block_elements(uint64_t count, int size);
uint64_t ring_scratch_bytes(uint64_t count, size_t elem, int size, uint64_t chunk_elements);

// Whether `next`'s receive and send may be posted before `current`'s
// reduction runs: its send must not read what the reduction writes, and its
// receive must not land on anything the reduction reads or writes.
bool can_post_early(const Step& next, const Step& current, size_t elem);

class ScheduleOperation final : public MpiOperation {
 public:
  enum class Kind { kRecursiveDoubling, kRing, kHalvingDoubling };
  // `chunk_bytes`: the ring's chunk (MpiOptions::ring_chunk_bytes).
  ScheduleOperation(Comm& comm, const strata_call_t& call, Kind kind, uint64_t chunk_bytes);

 private:
  void start() override;
  bool progress() override;
  uint64_t progress_mark() const override { return next_; }
  void post_step(size_t index);

  void combine(const Step& step);

  // A posted step's requests: step i uses pending_[i % 2], so at most the
  // current step and the one posted early are in flight.
  struct Pending {
    int count = 0;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  };

  std::vector<Step>& steps_;  // the team's (calls on one team never overlap)
  MPI_Datatype type_;
  MPI_Op op_;  // MEAN's partial operator, SUM
  size_t next_ = 0;    // the step being waited for
  size_t posted_ = 0;  // steps before this one are posted
  Pending pending_[2];
};

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_P2P_SCHEDULE_H_
