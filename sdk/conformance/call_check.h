// One call's data: the inputs of every replica, the host images to upload,
// and the element-by-element comparison of what came back with the host
// reference, reported the way gloo's check macros do — which replica, which
// element, expected and actual value.
#ifndef STRATA_SDK_CONFORMANCE_CALL_CHECK_H_
#define STRATA_SDK_CONFORMANCE_CALL_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sdk/conformance/case_spec.h"
#include "sdk/conformance/harness.h"
#include "sdk/conformance/values.h"

namespace strata::conformance {

struct CheckReport {
  uint64_t mismatches = 0;      // elements that differ, in all
  bool wrong_output = false;    // an output element differs: rule 10
  bool touched_input = false;   // memory that is not an output changed: rule 8
  std::vector<std::string> lines;  // the first few, one per element

  bool ok() const { return mismatches == 0; }
  // The lines, a total if some were left out, and the rules broken.
  std::string to_string() const;
};

// Storage reused by every call of a run. The inputs of a large team are
// tens of MiB; allocating them afresh per call made the suite spend most of
// its time page-faulting through zeroed memory.
struct Workspace {
  std::vector<double> inputs;      // [replica][element]
  std::vector<Expected> reduced;   // reduction of each input element, reducing ops
  std::vector<ReplicaImage> images;
  std::vector<ReplicaImage> uploaded;  // what `images` held before the call
  std::vector<double> actual;          // one stretch of a downloaded buffer, decoded
};

class CallCheck {
 public:
  // `root` is the call's root (broadcast, reduce; 0 otherwise); `seed`
  // makes this call's data differ from every other call's. The check lives
  // in `ws` until the next CallCheck is made.
  CallCheck(const CaseSpec& spec, int root, uint64_t seed, Workspace& ws);

  // Fills the workspace's images: inputs where the layout puts them, the
  // sentinel everywhere else.
  std::vector<ReplicaImage>& images(const std::vector<int>& replicas);
  CheckReport check(const std::vector<int>& replicas,
                    const std::vector<ReplicaImage>& images) const;

 private:
  enum class Region { kOutput, kInput, kUntouched };
  // Where the expected values of a stretch of a buffer come from: the
  // reference reductions, plain values (inputs), or one fill value.
  struct Source {
    const Expected* reduced = nullptr;
    const double* plain = nullptr;
    double fill = 0;
  };
  struct Segment {
    uint64_t begin = 0;
    uint64_t end = 0;
    Region region = Region::kUntouched;
    Source source;          // element `begin` of the segment is source[0]
    uint64_t label_base = 0;  // messages name element i as input/output[i - label_base]
  };

  // The segments of replica's allocation `which` (0: input or in-place
  // shared, 1: output), in order, covering it completely.
  std::vector<Segment> segments(int replica, int which, uint64_t elements) const;
  Source output_source(int replica) const;
  // `before` is what was uploaded into that allocation.
  void compare(int replica, int which, const HostBuffer& now, const HostBuffer& before,
               CheckReport& report) const;
  void check_guards(int replica, int which, const HostBuffer& now, const HostBuffer& before,
                    CheckReport& report) const;
  void report_mismatch(int replica, const Segment& seg, uint64_t at, double actual,
                       const Expected& want, CheckReport& report) const;

  CaseSpec spec_;
  int root_;
  InputGenerator gen_;
  uint64_t layout_in_;  // elements of each replica's input
  Workspace& ws_;
};

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_CALL_CHECK_H_
