#include "tools/ring_bench/gloo_ring.h"

#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <cstring>
#include <exception>

#include "core/common/clock.h"

namespace strata {
namespace {

// Gloo's rendezvous store interface over Strata's store, so Gloo forms its
// mesh through the same job store as Strata's own team. Gloo expects throws.
class StrataStoreForGloo final : public gloo::rendezvous::Store {
 public:
  StrataStoreForGloo(strata::Store& store, std::chrono::milliseconds timeout)
      : store_(store), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    Status s = store_.set(key, std::string_view(data.data(), data.size()));
    if (!s.ok()) throw std::runtime_error(s.to_string());
  }
  std::vector<char> get(const std::string& key) override {
    auto value = store_.get(key, deadline_after(timeout_));
    if (!value.ok()) throw std::runtime_error(value.status().to_string());
    return std::vector<char>(value->begin(), value->end());
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    const Deadline until = deadline_after(timeout);
    for (const std::string& key : keys) {
      auto value = store_.get(key, until);
      if (!value.ok()) throw std::runtime_error(value.status().to_string());
    }
  }

 private:
  strata::Store& store_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

GlooRing::GlooRing(std::shared_ptr<gloo::Context> context) : context_(std::move(context)) {}
GlooRing::~GlooRing() = default;

StatusOr<std::unique_ptr<GlooRing>> GlooRing::connect(gloo::rendezvous::Store& store,
                                                      const std::string& prefix, int rank,
                                                      int world, const std::string& hostname,
                                                      std::chrono::milliseconds timeout) {
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = hostname;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, world);
    context->setTimeout(timeout);
    gloo::rendezvous::PrefixStore prefixed(prefix, store);
    context->connectFullMesh(prefixed, device);
    return std::unique_ptr<GlooRing>(new GlooRing(std::move(context)));
  } catch (const std::exception& e) {
    return UnavailableError("rank " + std::to_string(rank) + ": Gloo could not connect its " +
                            std::to_string(world) + " ranks over " + hostname + ": " + e.what());
  }
}

StatusOr<std::unique_ptr<GlooRing>> GlooRing::connect(Store& store, int rank, int world,
                                                      const std::string& hostname,
                                                      std::chrono::milliseconds timeout,
                                                      const std::string& prefix) {
  StrataStoreForGloo adapter(store, timeout);
  return connect(adapter, prefix, rank, world, hostname, timeout);
}

Status GlooRing::all_reduce(const float* input, float* output, size_t count) {
  try {
    gloo::AllreduceOptions options(context_);
    options.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
    // Gloo's ring reduces in place in its output; out of place it copies first.
    if (input != output) std::memcpy(output, input, count * sizeof(float));
    options.setOutput(output, count);
    // What PyTorch's Gloo backend passes: Gloo's own (vectorised) sum.
    options.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
    options.setTag(tag_++);
    gloo::allreduce(options);
    return Status::Ok();
  } catch (const std::exception& e) {
    return InternalError(std::string("gloo::allreduce: ") + e.what());
  }
}

Status GlooRing::barrier() {
  try {
    gloo::BarrierOptions options(context_);
    options.setTag(tag_++);
    gloo::barrier(options);
    return Status::Ok();
  } catch (const std::exception& e) {
    return InternalError(std::string("gloo::barrier: ") + e.what());
  }
}

StatusOr<double> GlooRing::max_across_ranks(double value) {
  try {
    gloo::AllreduceOptions options(context_);
    options.setOutput(&value, 1);
    options.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::max<double>));
    options.setTag(tag_++);
    gloo::allreduce(options);
    return value;
  } catch (const std::exception& e) {
    return InternalError(std::string("gloo::allreduce (max of the ranks' times): ") + e.what());
  }
}

}  // namespace strata
