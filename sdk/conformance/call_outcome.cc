#include "sdk/conformance/call_outcome.h"

#include <algorithm>
#include <cstdlib>

namespace strata::conformance {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string CallOutcome::encode() const {
  return std::to_string(static_cast<int>(kind)) + " " + (timed_out ? "1" : "0") + " " +
         (stuck_devices ? "1" : "0") + "\n" + message;
}

CallOutcome CallOutcome::decode(std::string_view text) {
  CallOutcome out;
  const std::string head(text.substr(0, text.find('\n')));
  const int kind = std::atoi(head.c_str());
  if (kind < 0 || kind > static_cast<int>(Kind::kCallFailed) || head.size() != 5) {
    out.kind = Kind::kCallFailed;
    out.message = "a peer sent a verdict this build cannot read: '" + head + "'";
    return out;
  }
  out.kind = static_cast<Kind>(kind);
  out.timed_out = head[2] == '1';
  out.stuck_devices = head[4] == '1';
  if (text.size() > head.size()) out.message = std::string(text.substr(head.size() + 1));
  return out;
}

CallOutcome combine(const std::vector<CallOutcome>& by_rank) {
  if (by_rank.empty()) return {};
  size_t worst = 0;
  size_t declined = 0;
  for (size_t r = 0; r < by_rank.size(); ++r) {
    if (by_rank[r].kind > by_rank[worst].kind) worst = r;
    if (by_rank[r].kind == CallOutcome::Kind::kDeclined) ++declined;
  }
  CallOutcome out = by_rank[worst];
  for (const CallOutcome& o : by_rank) {
    out.timed_out = out.timed_out || o.timed_out;
    out.stuck_devices = out.stuck_devices || o.stuck_devices;
  }
  if (declined != 0 && declined != by_rank.size() && !out.failed()) {
    const auto d = static_cast<size_t>(
        std::find_if(by_rank.begin(), by_rank.end(),
                     [](const CallOutcome& o) { return o.kind == CallOutcome::Kind::kDeclined; }) -
        by_rank.begin());
    out.kind = CallOutcome::Kind::kDisagreed;
    out.message = "ranks disagree: rank " + std::to_string(d) + " declined (" +
                  by_rank[d].message +
                  ") while others ran the call; supports() must answer alike on every rank "
                  "(violates rule 5)";
    return out;
  }
  if (out.kind == CallOutcome::Kind::kPassed) return out;
  if (out.kind == CallOutcome::Kind::kDeclined) return out;  // the same reason everywhere
  out.message = "rank " + std::to_string(worst) + ": " + out.message;
  for (size_t r = 0; r < by_rank.size(); ++r) {
    if (r != worst && by_rank[r].failed()) {
      out.message += "\n  also rank " + std::to_string(r) + ": " + first_line(by_rank[r].message);
    }
  }
  return out;
}

}  // namespace strata::conformance
