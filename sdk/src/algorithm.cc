// Trampolines: the C table's functions, each catching every exception.
#include "strata/sdk/algorithm.h"

#include <cstring>
#include <string>

#include "strata/sdk/backoff.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::sdk {

// What core holds for one call is the Operation itself, which carries the
// services of the Runtime that created it.
struct OperationHandle {
  static Operation* of(void* op) { return static_cast<Operation*>(op); }
  static const strata_host_services_t* services(void* op) { return of(op)->host_services_; }
  static void* bind(std::unique_ptr<Operation> op, const strata_host_services_t* services) {
    op->host_services_ = services;
    return op.release();
  }
};

namespace {

Operation* handle(void* op) { return OperationHandle::of(op); }
const strata_host_services_t* services_of(void* op) { return OperationHandle::services(op); }

Algorithm* self(void* user_data) { return static_cast<Algorithm*>(user_data); }

strata_status_t abi_supports(void* ud, const strata_call_desc_t* call, strata_message_t msg) {
  HostScope scope(self(ud)->host_services());
  return guard(msg, [&] {
    if (auto reason = self(ud)->decline(*call)) {
      write_message(msg, *reason);
      return STRATA_NOT_SUPPORTED;
    }
    return STRATA_OK;
  });
}

strata_status_t abi_estimate(void* ud, const strata_call_desc_t* call, double* seconds) {
  HostScope scope(self(ud)->host_services());
  return guard({nullptr, 0}, [&] {
    auto value = self(ud)->estimate(*call);
    if (!value) return STRATA_NOT_SUPPORTED;
    *seconds = *value;
    return STRATA_OK;
  });
}

strata_status_t abi_team_create(void* ud, const strata_team_desc_t* team, void** state,
                                strata_message_t msg) {
  HostScope scope(self(ud)->host_services());
  return guard(msg, [&] {
    *state = self(ud)->create_team(*team).release();
    return STRATA_OK;
  });
}

void abi_team_destroy(void* ud, void* state) {
  HostScope scope(self(ud)->host_services());
  delete static_cast<TeamState*>(state);
}

// post() and test() dereference the handle: a nullptr must stop here.
std::unique_ptr<Operation> create_checked(void* ud, void* team, const strata_call_t& call) {
  auto created = self(ud)->create(static_cast<TeamState*>(team), call);
  if (created == nullptr) {
    throw Error(STRATA_INTERNAL, "Algorithm::create returned no operation (nullptr)");
  }
  return created;
}

strata_status_t abi_create(void* ud, void* team, const strata_call_t* call, void** op,
                           strata_message_t msg) {
  HostScope scope(self(ud)->host_services());
  return guard(msg, [&] {
    *op = OperationHandle::bind(create_checked(ud, team, *call), self(ud)->host_services());
    return STRATA_OK;
  });
}

// A failed step of run(): its message leads with the step, as core's own
// prefix would have named it had the steps been three calls. IN_PROGRESS
// thrown from create() or post() is a bug (rule 4), not a call in flight.
strata_status_t step_failed(strata_message_t msg, const char* step, strata_status_t status) {
  if (status == STRATA_IN_PROGRESS) {
    write_message(msg, "threw IN_PROGRESS, which only test() and wait() may answer (rule 4)");
    status = STRATA_INTERNAL;
  }
  if (msg.data == nullptr || msg.capacity == 0) return status;
  try {
    const std::string detail(msg.data, strnlen(msg.data, msg.capacity));
    write_message(msg, std::string(step) + (detail.empty() ? " failed" : ": " + detail));
  } catch (...) {  // out of memory: the message stays without its step
  }
  return status;
}

// create(), post() and the first wait() in one crossing (ABI 1.1): each
// crossing sets the host scope and a catch frame, and where ranks share a
// core a small call's crossings run cold after a context switch. After a
// failed post() or wait() the operation goes back to core, which destroys
// it and, because work may have started, breaks the team.
strata_status_t abi_run(void* ud, void* team, const strata_call_t* call, int64_t first_slice_ns,
                        void** op, strata_message_t msg) {
  HostScope scope(self(ud)->host_services());
  *op = nullptr;
  std::unique_ptr<Operation> created;
  strata_status_t s = guard(msg, [&] {
    created = create_checked(ud, team, *call);
    return STRATA_OK;
  });
  if (s != STRATA_OK) return step_failed(msg, "create", s);
  s = guard(msg, [&] {
    created->post();
    return STRATA_OK;
  });
  if (s != STRATA_OK) {
    *op = OperationHandle::bind(std::move(created), self(ud)->host_services());
    return step_failed(msg, "post", s);
  }
  s = guard(msg, [&] {
    return created->wait(std::chrono::nanoseconds(first_slice_ns)) ? STRATA_OK
                                                                    : STRATA_IN_PROGRESS;
  });
  if (s == STRATA_OK) return s;
  *op = OperationHandle::bind(std::move(created), self(ud)->host_services());
  return s == STRATA_IN_PROGRESS ? s : step_failed(msg, "wait", s);
}

strata_status_t abi_post(void* op, strata_message_t msg) {
  HostScope scope(services_of(op));
  return guard(msg, [&] {
    handle(op)->post();
    return STRATA_OK;
  });
}

strata_status_t abi_test(void* op, strata_message_t msg) {
  HostScope scope(services_of(op));
  return guard(msg, [&] { return handle(op)->test() ? STRATA_OK : STRATA_IN_PROGRESS; });
}

strata_status_t abi_wait(void* op, int64_t timeout_ns, strata_message_t msg) {
  HostScope scope(services_of(op));
  return guard(msg, [&] {
    return handle(op)->wait(std::chrono::nanoseconds(timeout_ns)) ? STRATA_OK
                                                                   : STRATA_IN_PROGRESS;
  });
}

void abi_abort_op(void* op) {
  HostScope scope(services_of(op));
  try {
    handle(op)->abort();
  } catch (const std::exception& e) {
    Host::log(STRATA_LOG_WARNING, std::string("abort failed: ") + e.what());
  } catch (...) {
    Host::log(STRATA_LOG_WARNING, "abort failed with an unknown exception");
  }
}

void abi_destroy(void* op) {
  HostScope scope(services_of(op));
  delete handle(op);
}

}  // namespace

bool Operation::wait(std::chrono::nanoseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Backoff backoff;
  while (!test()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    backoff.pause();
  }
  return true;
}

Algorithm::Algorithm(std::string name, strata_op_t op, uint32_t scope,
                     std::string description)
    : name_(std::move(name)),
      op_(op),
      scope_(scope),
      description_(std::move(description)) {}

std::optional<std::string> Algorithm::decline(const strata_call_desc_t&) const {
  return std::nullopt;
}

std::optional<double> Algorithm::estimate(const strata_call_desc_t&) const {
  return std::nullopt;
}

std::unique_ptr<TeamState> Algorithm::create_team(const strata_team_desc_t&) {
  return nullptr;
}

strata_algorithm_t Algorithm::table() {
  strata_algorithm_t t{};
  t.struct_size = sizeof t;
  t.name = name_.c_str();
  t.op = op_;
  t.scope = scope_;
  t.description = description_.c_str();
  t.user_data = this;
  t.supports = &abi_supports;
  t.estimate = &abi_estimate;
  t.team_create = &abi_team_create;
  t.team_destroy = &abi_team_destroy;
  t.create = &abi_create;
  t.post = &abi_post;
  t.test = &abi_test;
  t.wait = &abi_wait;
  t.abort = &abi_abort_op;
  t.destroy = &abi_destroy;
  t.run = &abi_run;
  return t;
}

}  // namespace strata::sdk
