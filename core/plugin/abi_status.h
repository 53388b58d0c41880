// Turning what a plugin returned into a Status. A plugin may return any
// int32; only the codes in strata/abi/status.h mean something, the rest are
// reported as INTERNAL "unknown status N" (a plugin bug, not a crash).
#ifndef STRATA_CORE_PLUGIN_ABI_STATUS_H_
#define STRATA_CORE_PLUGIN_ABI_STATUS_H_

#include <source_location>
#include <string>
#include <string_view>

#include "core/common/status.h"
#include "strata/abi/status.h"

namespace strata {

// A message buffer for one ABI call; messages longer than this are cut.
// Only the first byte is cleared: str() stops at the capacity, and zeroing
// all of it cost a kilobyte of stores per ABI call, one to four calls per
// collective (docs/performance/mpi_per_call.md, "Cutting the per-call footprint").
struct AbiMessage {
  AbiMessage() { text[0] = '\0'; }
  char text[1024];
  strata_message_t view() { return {text, sizeof text}; }
  std::string str() const;  // NUL-safe even if the plugin forgot to end it
};

bool is_known_status(strata_status_t status);

// OK for STRATA_OK; for IN_PROGRESS, an error ("returned IN_PROGRESS where
// only a final status is allowed") unless `allow_in_progress`.
Status from_abi(strata_status_t status, const AbiMessage& message,
                std::string_view what, bool allow_in_progress = false,
                std::source_location where = std::source_location::current());

strata_status_t to_abi(const Status& status);

// For a catch (...) handler around a call into a plugin, which rule 2 of
// sdk/README.md forbids to throw: " threw an exception across the C ABI
// (sdk/README.md rule 2): <what()>", to follow the function's name. The
// exception's own words are kept: they are often the only clue. Every such
// handler in core uses this one, so the reports read alike. Only inside a
// handler: it rethrows the exception in flight to read it.
std::string threw_across_abi();

}  // namespace strata

#endif  // STRATA_CORE_PLUGIN_ABI_STATUS_H_
