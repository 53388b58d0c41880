// The shape every tpu_sim operation shares: post() enqueues the schedule —
// ring steps of pulls and reductions on the cores' streams, ordered with
// events — then records a final event on every core it used; test() and
// wait() look at those. Subclasses only write schedule().
//
// Ring steps pull: the receiving core copies the chunk from its neighbour's
// memory over the link into its own, so every write to a core's memory runs
// on that core's stream and stream order protects it; a pull only waits for
// the neighbour's signal that the chunk is ready.
#ifndef STRATA_PLUGINS_TPU_SIM_TORUS_OPERATION_H_
#define STRATA_PLUGINS_TPU_SIM_TORUS_OPERATION_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "strata/sdk/algorithm.h"
#include "torus_team.h"

namespace strata::tpu_sim {

// A contiguous element range.
struct Range {
  uint64_t begin = 0;
  uint64_t count = 0;
};

// Part `part` of `parts` of `count` elements from `begin`; boundaries fall
// on 64-byte multiples so two cores never write one cache line.
Range slice(Range whole, size_t elem_size, int part, int parts);

class TorusOperation : public sdk::Operation {
 public:
  TorusOperation(TorusTeam& team, const strata_call_t& call);
  // Queued work uses the caller's buffers: an operation that is aborted, or
  // whose post() failed half-way, drains its cores before it goes (rule 8).
  ~TorusOperation() override;
  void post() final;
  bool test() final;
  bool wait(std::chrono::nanoseconds timeout) final;

 protected:
  virtual void schedule() = 0;

  int n() const { return team_.size(); }
  const TeamGrid& grid() const { return team_.grid(); }
  const strata_call_desc_t& desc() const { return *call_.desc; }
  uint64_t count() const { return call_.desc->count; }
  size_t elem() const { return elem_; }
  bool in_place() const { return call_.desc->in_place != 0; }
  // Local replica index of the call's root (a global rank).
  int root() const { return call_.desc->root - call_.desc->team->replica_offset; }
  char* in(int r) const { return static_cast<char*>(call_.inputs[r].data); }
  char* out(int r) const { return static_cast<char*>(call_.outputs[r].data); }
  TorusTeam& team() { return team_; }

  // On `on`'s stream: copy `bytes` from `src` in `from`'s memory to `dst`
  // in `on`'s memory, over the links between their cores.
  void pull(int on, void* dst, const void* src, int from, uint64_t bytes);
  // On `on`'s stream: dst = combine(srcs), all in `on`'s memory. `final`
  // applies MEAN's division; earlier partial reductions of a MEAN sum.
  void reduce(int on, void* dst, std::span<const void* const> srcs, uint64_t elements,
              bool final);
  void signal(int r);                  // record r's event after its work so far
  void wait_for(int r, int producer);  // r's later work waits for producer's signal

  // Ring steps (torus_ring_steps.cc) over `ring`, replicas in ring order,
  // each pulling from its predecessor; every step ends with all members
  // signalling, so a step waits only for the previous one.
  //
  // Reduce-scatter of `whole` in ring.size() parts: afterwards the member at
  // ring position i holds part (i + 1) % k, reduced over the ring, in its
  // output. A member's own data is in its input, or in its output where an
  // earlier phase left partial results (`partials`); `final` makes the last
  // step apply MEAN's division.
  void ring_reduce_scatter(const std::vector<int>& ring, Range whole, bool partials,
                           bool final);
  // All-gather in ring.size() parts: the member at position i starts with
  // part (i + shift) % k in its output and ends with all. parts(p) lists
  // the element ranges of part p (a row block may be several slots).
  void ring_all_gather(const std::vector<int>& ring, int shift,
                       const std::function<std::vector<Range>(int)>& parts);
  // Scratch of `bytes` on replica r's core for received chunks.
  char* scratch(int r, uint64_t bytes) { return team_.scratch(r, bytes); }

 private:
  void record_final_events();

  TorusTeam& team_;
  strata_call_t call_;
  size_t elem_;
  std::vector<bool> used_;
  bool posted_ = false;
  bool done_ = false;
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TORUS_OPERATION_H_
