// InProcessChannel: a PsChannel straight into a ParameterServer object.
// Requests still go through the wire encoding and the server's checks (the
// hello with its token, sequence numbers, sizes), only the socket is gone,
// so tests of the schemes and the coordinator run in milliseconds.
// sever() imitates a ps that died: every later call is UNAVAILABLE.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_IN_PROCESS_CHANNEL_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_IN_PROCESS_CHANNEL_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/strategy/parameter_server/parameter_server.h"
#include "core/strategy/parameter_server/ps_channel.h"

namespace strata::ps {

class InProcessChannel final : public PsChannel {
 public:
  // PERMISSION_DENIED when the server refuses `hello` (wrong token).
  static StatusOr<std::unique_ptr<InProcessChannel>> open(std::shared_ptr<ParameterServer> server,
                                                          const Hello& hello);
  StatusOr<Frame> call(Op op, std::string payload, Deadline deadline) override;
  const std::string& address() const override { return address_; }
  void sever() { severed_ = true; }

 private:
  InProcessChannel(std::shared_ptr<ParameterServer> server, Session session);

  std::shared_ptr<ParameterServer> server_;
  std::string address_ = "in-process";
  std::atomic<bool> severed_{false};
  std::mutex mu_;  // guards session_, seq_
  Session session_;
  uint64_t seq_ = 0;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_IN_PROCESS_CHANNEL_H_
