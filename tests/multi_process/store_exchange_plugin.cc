// A test plugin whose cross-process algorithms move data through the team's
// rendezvous store: each process publishes its input under the call's
// sequence number and computes the result from everyone's. Slow and simple,
// it lets core's multi-process paths (composition, team agreement, shape
// checks, health checks) run with threads standing in for processes and a
// memory store, where no real transport can connect them.
//   store_exchange/<op>/exchange   every op, CROSS_PROCESS scope, host memory
//   store_exchange/all_reduce/twin the same all-reduce under a second id, so
//                                  ranks whose configs differ can select
//                                  differently (AUTO ties go by id: exchange)
// Built a second time as the host_aware plugin (STRATA_HOST_AWARE_PLUGIN),
// the same exchange under two cost models, for host composition's AUTO:
//   host_aware/<op>/one_host       cheap, declines teams whose host_count
//                                  is not 1 (what a shared-memory plugin does)
//   host_aware/<op>/between_hosts  dearer, any team; both cost (n - 1) steps
#include <cstring>
#include <string>
#include <vector>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/plugin.h"

namespace sdk = strata::sdk;

namespace {

std::string key(uint64_t sequence, int rank) {
  return "x/" + std::to_string(sequence) + "/" + std::to_string(rank);
}

class ExchangeOperation final : public sdk::Operation {
 public:
  explicit ExchangeOperation(const strata_call_t& call)
      : call_(call), desc_(*call.desc), team_(*call.desc->team),
        peers_(static_cast<size_t>(team_.process_count)),
        have_(static_cast<size_t>(team_.process_count), false) {}

  void post() override {
    const bool publishes = (desc_.op != STRATA_BROADCAST || desc_.root == team_.process_rank);
    if (!publishes) return;
    sdk::Host::store_set(team_.store, key(call_.sequence, team_.process_rank),
                         std::string(static_cast<const char*>(call_.inputs[0].data),
                                     input_bytes()));
  }

  bool test() override {
    for (int r = 0; r < team_.process_count; ++r) {
      if (have_[static_cast<size_t>(r)] || !needs(r)) continue;
      try {
        peers_[static_cast<size_t>(r)] =
            sdk::Host::store_get(team_.store, key(call_.sequence, r), sdk::Host::now_ns());
        have_[static_cast<size_t>(r)] = true;
      } catch (const sdk::Error& e) {
        if (e.code() == STRATA_TIMED_OUT) return false;  // not published yet
        throw;
      }
    }
    finish();
    return true;
  }

 private:
  uint64_t elem() const { return sdk::dtype_size(desc_.dtype); }
  uint64_t input_bytes() const {
    const uint64_t n = desc_.op == STRATA_REDUCE_SCATTER
                           ? desc_.count * static_cast<uint64_t>(team_.process_count)
                           : desc_.count;
    return desc_.op == STRATA_BARRIER ? 0 : n * elem();
  }
  bool needs(int r) const {
    if (desc_.op == STRATA_BROADCAST) return r == desc_.root;
    return true;
  }
  void* out() const { return call_.outputs[0].data; }

  void reduce_into(void* dst, uint64_t offset_elems) const {
    std::vector<const void*> srcs;
    for (const auto& p : peers_) srcs.push_back(p.data() + offset_elems * elem());
    if (!sdk::reduce_host(desc_.dtype, desc_.redop, dst, srcs.data(),
                          static_cast<uint32_t>(srcs.size()), desc_.count,
                          static_cast<uint32_t>(srcs.size()))) {
      throw sdk::NotSupported("dtype or operator unknown to reduce_host");
    }
  }

  void finish() {
    const uint64_t bytes = desc_.count * elem();
    switch (desc_.op) {
      case STRATA_ALL_REDUCE: reduce_into(out(), 0); break;
      case STRATA_REDUCE:
        if (desc_.root == team_.process_rank) reduce_into(out(), 0);
        break;
      case STRATA_REDUCE_SCATTER:
        reduce_into(out(), desc_.count * static_cast<uint64_t>(team_.process_rank));
        break;
      case STRATA_BROADCAST:
        if (bytes != 0) std::memmove(out(), peers_[static_cast<size_t>(desc_.root)].data(), bytes);
        break;
      case STRATA_ALL_GATHER:
        for (size_t r = 0; r < peers_.size(); ++r) {
          if (bytes != 0) std::memmove(static_cast<char*>(out()) + r * bytes, peers_[r].data(), bytes);
        }
        break;
      default: break;
    }
  }

  strata_call_t call_;
  strata_call_desc_t desc_;
  strata_team_desc_t team_;
  std::vector<std::string> peers_;
  std::vector<bool> have_;
};

class Exchange final : public sdk::Algorithm {
 public:
  explicit Exchange(strata_op_t op, std::string name = "exchange")
      : Algorithm(std::move(name), op, STRATA_SCOPE_CROSS_PROCESS,
                  "test plugin: data exchanged through the team store") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    const auto devices = sdk::DeviceTable::of(call.device_type);
    if (!devices.props(call.team->local_devices[0].index).host_accessible) {
      return "store_exchange needs host-accessible memory";
    }
    return std::nullopt;
  }
  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t& call) override {
    return std::make_unique<ExchangeOperation>(call);
  }
};

#ifdef STRATA_HOST_AWARE_PLUGIN
// The exchange with a cost model: (processes - 1) steps of `latency` plus
// the call's bytes at `bandwidth`; `one_host` declines teams across hosts.
class CostedExchange final : public sdk::Algorithm {
 public:
  CostedExchange(strata_op_t op, std::string name, bool one_host, double latency,
                 double bandwidth)
      : Algorithm(std::move(name), op, STRATA_SCOPE_CROSS_PROCESS,
                  "test plugin: data exchanged through the team store, with a cost model"),
        one_host_(one_host), latency_(latency), bandwidth_(bandwidth) {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    if (one_host_ && call.team->host_count != 1) {
      return "serves the processes of one host; this team spans " +
             std::to_string(call.team->host_count) + " hosts";
    }
    return std::nullopt;
  }
  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const double bytes = static_cast<double>(call.count * sdk::dtype_size(call.dtype));
    return (call.team->process_count - 1) * (latency_ + bytes / bandwidth_);
  }
  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t& call) override {
    return std::make_unique<ExchangeOperation>(call);
  }

 private:
  bool one_host_;
  double latency_;
  double bandwidth_;
};

void register_host_aware(sdk::Registrar& r) {
  for (strata_op_t op : {STRATA_ALL_REDUCE, STRATA_BROADCAST, STRATA_ALL_GATHER,
                         STRATA_REDUCE_SCATTER, STRATA_REDUCE, STRATA_BARRIER}) {
    r.add<CostedExchange>(op, "one_host", true, 1e-6, 20e9);
    r.add<CostedExchange>(op, "between_hosts", false, 20e-6, 1e9);
  }
}
#else
void register_store_exchange(sdk::Registrar& r) {
  for (strata_op_t op : {STRATA_ALL_REDUCE, STRATA_BROADCAST, STRATA_ALL_GATHER,
                         STRATA_REDUCE_SCATTER, STRATA_REDUCE, STRATA_BARRIER}) {
    r.add<Exchange>(op);
  }
  r.add<Exchange>(STRATA_ALL_REDUCE, "twin");
}
#endif

}  // namespace

#ifdef STRATA_HOST_AWARE_PLUGIN
STRATA_PLUGIN("host_aware", "0.0.1",
              "test plugin: store exchange costed for one host and between hosts",
              register_host_aware)
#else
STRATA_PLUGIN("store_exchange", "0.0.1",
              "test plugin: cross-process collectives through the rendezvous store",
              register_store_exchange)
#endif
