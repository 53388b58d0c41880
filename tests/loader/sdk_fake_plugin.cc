// A fake plugin built the supported way, with the SDK and STRATA_PLUGIN, to
// check that the SDK's trampolines keep their promise: whatever plugin code
// throws comes out as a status with the message, never as an exception.
//   fake_sdk/all_reduce/refuses  create() throws sdk::NotSupported
//   fake_sdk/all_reduce/crashes  post() throws a plain std::runtime_error
//   fake_sdk/all_reduce/no_op    create() returns no operation at all
//   fake_sdk/all_reduce/garbage  create() throws sdk::Error with code 42
#include <memory>
#include <stdexcept>
#include <string>

#include "strata/sdk/plugin.h"

namespace sdk = strata::sdk;

namespace {

class RefusingAllReduce final : public sdk::Algorithm {
 public:
  RefusingAllReduce()
      : Algorithm("refuses", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, "create() declines") {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t& call) override {
    throw sdk::NotSupported("fake_sdk cannot serve " + std::to_string(call.desc->count) +
                            " elements");
  }
};

class CrashingAllReduce final : public sdk::Algorithm {
 public:
  CrashingAllReduce()
      : Algorithm("crashes", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, "post() throws") {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t&) override {
    return std::make_unique<sdk::ImmediateOperation>(
        [] { throw std::runtime_error("backend exploded"); });
  }
};

// An easy slip ("nothing to do for this call"): core must not get a NULL op.
class NullAllReduce final : public sdk::Algorithm {
 public:
  NullAllReduce() : Algorithm("no_op", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, "returns nullptr") {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t&) override {
    return nullptr;
  }
};

// An sdk::Error whose code status.h does not define (rule 4): the SDK passes
// it on, and core must still say which step of run() it came from.
class GarbageAllReduce final : public sdk::Algorithm {
 public:
  GarbageAllReduce()
      : Algorithm("garbage", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL, "throws code 42") {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t&) override {
    throw sdk::Error(42, "invented a status");
  }
};

void register_fake_sdk(sdk::Registrar& registrar) {
  registrar.add<RefusingAllReduce>();
  registrar.add<CrashingAllReduce>();
  registrar.add<NullAllReduce>();
  registrar.add<GarbageAllReduce>();
}

}  // namespace

STRATA_PLUGIN("fake_sdk", "0.0.1", "SDK trampolines under stress (tests/loader)",
              register_fake_sdk)
