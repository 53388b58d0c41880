// strata_store_peer: one rank of a multi-process store test, run by the
// tests in this directory. Prints what went wrong and exits non-zero.
//
//   strata_store_peer count      TYPE ADDRESS RANK WORLD N
//       add 1 to "counter" N times, then set "done/RANK"
//   strata_store_peer rendezvous TYPE ADDRESS RANK WORLD NAME TIMEOUT_MS
//       exit 0 when all arrived, 3 with the error otherwise
//   strata_store_peer heartbeat  TYPE ADDRESS RANK WORLD INTERVAL_MS
//       run a HealthMonitor, set "ready/RANK", wait (at most 60 s) for
//       "release", then leave
//   strata_store_peer connect    TYPE ADDRESS RANK WORLD TIMEOUT_MS
//       open only; exit 0, or 3 with the error
//   strata_store_peer host       tcp  HOST:0  0    WORLD INTERVAL_MS
//       host the TCP store on a free port, print "address=HOST:PORT", then
//       as heartbeat (for tests that stop or kill the store's host)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/cluster/health_monitor.h"
#include "core/cluster/rendezvous.h"
#include "core/cluster/store.h"
#include "core/cluster/tcp_store_type.h"
#include "core/runtime/runtime.h"
#include "strata/sdk/error.h"
#include "tests/stores/sdk_store_adapter.h"

namespace strata {
namespace {

using namespace std::chrono_literals;

int fail(const Status& s) {
  std::printf("%s\n", s.to_string().c_str());
  std::fflush(stdout);
  return 3;
}

int heartbeat(Store& s, int rank, int world, const std::string& interval_ms) {
  HealthMonitor monitor(s, rank, world, std::chrono::milliseconds(std::atoi(interval_ms.c_str())));
  if (Status st = s.set("ready/" + std::to_string(rank), "1"); !st.ok()) return fail(st);
  auto released = s.get("release", deadline_after(60s));
  if (!released.ok()) return fail(released.status());
  Status left = monitor.leave();
  return left.ok() ? 0 : fail(left);
}

int host(const std::string& address, int world, const std::string& interval_ms) {
  std::unique_ptr<TcpStore> tcp;
  try {
    tcp = TcpStore::open(address, 0, world, deadline_after(20s), TcpStoreOptions{});
  } catch (const sdk::Error& e) {
    return fail(Status(static_cast<Code>(e.code()), e.what()));
  }
  std::printf("address=%s\n", tcp->address().c_str());
  std::fflush(stdout);
  testing::SdkStoreAdapter s(std::move(tcp));
  return heartbeat(s, 0, world, interval_ms);
}

int run(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s ACTION TYPE ADDRESS RANK WORLD ARG...\n", argv[0]);
    return 2;
  }
  const std::string action = argv[1];
  const std::string type_name = argv[2];
  const std::string address = argv[3];
  const int rank = std::atoi(argv[4]);
  const int world = std::atoi(argv[5]);
  const std::string arg = argv[6];
  if (action == "host") return host(address, world, arg);

  auto rt = Runtime::create({}, RuntimeOptions{.discover_plugins = false,
                                               .use_environment = false,
                                               .plugin_files = {}});
  if (!rt.ok()) return fail(rt.status());
  const StoreTypeEntry* type = (*rt)->registry().find_store_type(type_name);
  if (type == nullptr) return fail(NotFoundError("no store type " + type_name));
  const auto open_timeout = action == "connect" || action == "rendezvous"
                                ? std::chrono::milliseconds(std::atoi(argv[argc - 1]))
                                : std::chrono::milliseconds(20s);
  auto store = open_store(*type, address, rank, world, deadline_after(open_timeout));
  if (!store.ok()) return fail(store.status());
  Store& s = **store;

  if (action == "connect") return 0;
  if (action == "count") {
    const int n = std::atoi(arg.c_str());
    for (int i = 0; i < n; ++i) {
      if (auto v = s.add("counter", 1); !v.ok()) return fail(v.status());
    }
    if (Status st = s.set("done/" + std::to_string(rank), "ok"); !st.ok()) return fail(st);
    return 0;
  }
  if (action == "rendezvous") {
    Status st = rendezvous(s, arg, rank, world, deadline_after(open_timeout),
                           [](int r) { return "worker " + std::to_string(r); });
    return st.ok() ? 0 : fail(st);
  }
  if (action == "heartbeat") return heartbeat(s, rank, world, arg);
  std::fprintf(stderr, "unknown action %s\n", action.c_str());
  return 2;
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) { return strata::run(argc, argv); }
