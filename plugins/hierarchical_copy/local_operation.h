// The shape every hierarchical_copy operation shares: post() enqueues a DAG
// of copies and reductions on the replicas' device streams, ordered with
// events, then records a final event on each stream it used; test() and
// wait() look at those final events. Subclasses only write schedule().
#ifndef STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_OPERATION_H_
#define STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_OPERATION_H_

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "local_team.h"
#include "strata/sdk/algorithm.h"

namespace strata::hierarchical_copy {

// A contiguous element range.
struct Range {
  uint64_t begin = 0;
  uint64_t count = 0;
};

// Slice `part` of `parts` of `count` elements; boundaries fall on 64-byte
// multiples so two streams never write one cache line.
Range slice(uint64_t count, size_t elem_size, int part, int parts);

class LocalOperation : public sdk::Operation {
 public:
  LocalOperation(LocalTeam& team, const strata_call_t& call);
  // Work already queued on a stream cannot be recalled, and it uses the
  // caller's buffers: an operation that is aborted, or whose post() failed
  // half-way, drains its streams before it is destroyed (rule 8).
  ~LocalOperation() override;
  void post() final;
  bool test() final;
  bool wait(std::chrono::nanoseconds timeout) final;

 protected:
  virtual void schedule() = 0;

  int n() const { return team_.size(); }
  const strata_call_desc_t& desc() const { return *call_.desc; }
  uint64_t count() const { return call_.desc->count; }
  size_t elem() const { return elem_; }
  uint64_t sequence() const { return call_.sequence; }
  // Local replica index of the call's root (a global rank).
  int root() const { return call_.desc->root - call_.desc->team->replica_offset; }
  char* in(int r) const { return static_cast<char*>(call_.inputs[r].data); }
  char* out(int r) const { return static_cast<char*>(call_.outputs[r].data); }
  LocalTeam& team() { return team_; }

  // Enqueue on replica `on`'s stream. Pointers belong to the replicas named.
  void copy(int on, void* dst, int dst_replica, const void* src, int src_replica, uint64_t bytes);
  // dst = combine(srcs); `final` applies MEAN's division (by replica_count),
  // earlier partial reductions of a MEAN sum.
  void reduce(int on, void* dst, std::span<const void* const> srcs, uint64_t elements, bool final);
  // The same, writing the one result to every destination in a single pass.
  void reduce_to(int on, std::span<void* const> dsts, std::span<const void* const> srcs,
                 uint64_t elements, bool final);
  // A pointer `on` can read `src` (of `src_replica`) through: `src` itself
  // with peer access, else a staged copy in `on`'s scratch slot `slot`.
  const void* readable(int on, const void* src, int src_replica, uint64_t bytes, int slot);

  void signal(int r);                // record r's event after its work so far
  void wait_for(int r, int producer);  // r's later work waits for producer's signal
  void join(std::span<const int> replicas);  // each waits for all the others

 private:
  LocalTeam& team_;
  strata_call_t call_;
  size_t elem_;
  void record_final_events();

  std::vector<bool> used_;
  bool posted_ = false;
  bool done_ = false;
};

}  // namespace strata::hierarchical_copy

#endif  // STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_OPERATION_H_
