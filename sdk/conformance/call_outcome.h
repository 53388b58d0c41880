// What one call of a test came to on this process, in a form the processes
// of a multi-process run (--processes) exchange and combine, so that every
// process records the same verdict and keeps making the same calls.
#ifndef STRATA_SDK_CONFORMANCE_CALL_OUTCOME_H_
#define STRATA_SDK_CONFORMANCE_CALL_OUTCOME_H_

#include <string>
#include <string_view>
#include <vector>

namespace strata::conformance {

// Text up to its first newline (messages in tables and rank summaries).
std::string first_line(const std::string& text);

struct CallOutcome {
  // In rising severity: combine() keeps the most severe.
  enum class Kind {
    kPassed = 0,
    kDeclined = 1,        // message: the plugin's reason
    kMismatch = 2,        // wrong results (rule 10) or touched memory (rule 8)
    kReadbackFailed = 3,  // the call said done but the buffers could not be read
    kSetupFailed = 4,     // the suite could not prepare buffers: no call was made
    kDisagreed = 5,       // some ranks declined, others ran the call (rule 5)
    kCallFailed = 6,      // the collective returned an error
  };
  Kind kind = Kind::kPassed;
  std::string message;
  bool timed_out = false;      // kCallFailed with TIMED_OUT (rule 7)
  bool stuck_devices = false;  // device work still queued after the grace period

  bool failed() const { return kind != Kind::kPassed && kind != Kind::kDeclined; }
  // A team that saw this may have calls pending on some rank: rebuild it.
  bool breaks_team() const {
    return kind == Kind::kCallFailed || kind == Kind::kDisagreed || kind == Kind::kSetupFailed;
  }

  std::string encode() const;
  static CallOutcome decode(std::string_view text);
};

// The verdict of all ranks' outcomes (index = rank): the most severe one,
// its message prefixed "rank N: " and followed by the first line of every
// other rank's failure; a decline on some ranks only is kDisagreed.
CallOutcome combine(const std::vector<CallOutcome>& by_rank);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_CALL_OUTCOME_H_
