// PsChannel: a worker's line to one ps task, over TCP (TcpChannel) or to a
// ParameterServer in the same process (InProcessChannel, for fast tests
// and for embedders running ps and workers as threads). One request at a
// time per channel; each call numbers its request and checks the echo.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_CHANNEL_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_CHANNEL_H_

#include <string>

#include "core/common/clock.h"
#include "core/common/status.h"
#include "core/strategy/parameter_server/ps_wire.h"

namespace strata::ps {

class PsChannel {
 public:
  virtual ~PsChannel() = default;
  // The reply (op kOk or kNotReady) or why there is none: the ps's own
  // error as sent, UNAVAILABLE / TIMED_OUT when the ps cannot be reached by
  // `deadline`. After a transport failure every later call fails the same
  // way without trying (a half-read reply cannot be resynchronised).
  virtual StatusOr<Frame> call(Op op, std::string payload, Deadline deadline) = 0;
  // "127.0.0.1:29501" or "in-process", for messages.
  virtual const std::string& address() const = 0;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_CHANNEL_H_
