// One C++ class per algorithm: derive from sdk::Algorithm, override create()
// (and usually decline() and estimate()), and register an instance. The SDK
// builds the C table with noexcept trampolines around these virtuals.
#ifndef STRATA_SDK_ALGORITHM_H_
#define STRATA_SDK_ALGORITHM_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "strata/abi/registrar.h"
#include "strata/abi/algorithm.h"

namespace strata::sdk {

// Per-team state an algorithm keeps between calls (communicators, scratch).
class TeamState {
 public:
  virtual ~TeamState() = default;
};

// One call in flight. Every method may throw sdk::Error; the trampolines turn
// it into a status. Core calls post() once, then test() (or wait()) until it
// returns true, from one thread at a time.
class Operation {
 public:
  virtual ~Operation() = default;
  virtual void post() = 0;
  // true when finished and every output is visible to the host.
  virtual bool test() = 0;
  // Block up to `timeout` for completion. The default polls test() with
  // back-off (sdk::Backoff); override when the backend can sleep on an event.
  virtual bool wait(std::chrono::nanoseconds timeout);
  // Stop early: must not block for peers. Default does nothing.
  virtual void abort() {}

 private:
  // The services of the Runtime that created this operation, made current
  // around every call into it. Kept here rather than in a wrapper so that
  // core's handle is the operation itself: one allocation less per call.
  friend struct OperationHandle;
  const strata_host_services_t* host_services_ = nullptr;
};

class Algorithm {
 public:
  Algorithm(std::string name, strata_op_t op, uint32_t scope,
            std::string description);
  virtual ~Algorithm() = default;
  Algorithm(const Algorithm&) = delete;
  Algorithm& operator=(const Algorithm&) = delete;

  // A reason to decline `call`, or nullopt to accept it. Must be
  // deterministic and equal on every rank (sdk/README.md, rule 5).
  virtual std::optional<std::string> decline(
      const strata_call_desc_t& call) const;

  // Predicted seconds for `call`, or nullopt for "no estimate".
  virtual std::optional<double> estimate(const strata_call_desc_t& call) const;

  // Per-team state; the default keeps none.
  virtual std::unique_ptr<TeamState> create_team(const strata_team_desc_t& team);

  // Prepare one call; must not start communication.
  virtual std::unique_ptr<Operation> create(TeamState* team,
                                            const strata_call_t& call) = 0;

  const std::string& name() const { return name_; }
  strata_op_t op() const { return op_; }

  // The C table for this object; `this` is its user_data.
  strata_algorithm_t table();

  // Set by sdk::Registrar: the services of the Runtime this object belongs
  // to, made current around every call into it.
  void bind_host(const strata_host_services_t* services) { services_ = services; }
  const strata_host_services_t* host_services() const { return services_; }

 private:
  const strata_host_services_t* services_ = nullptr;
  std::string name_;
  strata_op_t op_;
  uint32_t scope_;
  std::string description_;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_ALGORITHM_H_
