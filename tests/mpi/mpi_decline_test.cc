// The plugin as core loads it: what it declines and why, its options, the
// resolver outside mpirun, and team_create's rendezvous (a missing rank is
// a TIMED_OUT naming it; processes that are not one MPI world and have no
// ompi-server are declined with what to do).
#include <gtest/gtest.h>

#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "core/cluster/resolve.h"
#include "core/cluster/store.h"
#include "core/runtime/runtime.h"
#include "mpi_test_env.h"

namespace strata {
namespace {

std::string plugin_path() { return std::string(STRATA_PLUGIN_DIR) + "/libstrata_mpi.so"; }

StatusOr<std::shared_ptr<Runtime>> load(const std::string& yaml = "strata: 1\n") {
  STRATA_ASSIGN_OR_RETURN(Config config, parse_config(yaml, "<test>"));
  return Runtime::create(config, RuntimeOptions{.discover_plugins = false,
                                                .use_environment = false,
                                                .plugin_files = {plugin_path()}});
}

// A job store inside the process, for team_create called directly.
class MapStore final : public Store {
 public:
  Status set(std::string_view key, std::string_view value) override {
    std::lock_guard lock(mu_);
    values_[std::string(key)] = std::string(value);
    cv_.notify_all();
    return Status::Ok();
  }
  StatusOr<std::string> get(std::string_view key, Deadline deadline) override {
    std::unique_lock lock(mu_);
    const std::string k(key);
    if (!cv_.wait_until(lock, deadline, [&] { return values_.count(k) != 0; })) {
      return TimedOutError("key '" + k + "' never appeared");
    }
    return values_[k];
  }
  StatusOr<int64_t> add(std::string_view, int64_t) override {
    return NotSupportedError("not needed here");
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> values_;
};

class MpiPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
                          "OMPI_MCA_pmix_server_uri", "STRATA_MPI_ALL_REDUCE"}) {
      unsetenv(v);
    }
    auto rt = load();
    ASSERT_TRUE(rt.ok()) << rt.status();
    runtime_ = *rt;
    device_ = (*runtime_->devices("cpu", 1))[0];
  }

  const AlgorithmEntry& algo(const std::string& id) {
    const AlgorithmEntry* a = runtime_->registry().find_algorithm(id);
    EXPECT_NE(a, nullptr) << id;
    return *a;
  }

  strata_team_desc_t team(int rank, int processes, uint32_t local = 1) {
    strata_team_desc_t t{};
    t.struct_size = sizeof t;
    t.team_id = 9;
    t.process_rank = rank;
    t.process_count = processes;
    t.local_count = local;
    t.local_devices = &device_;
    t.replica_offset = rank * static_cast<int32_t>(local);
    t.replica_count = processes * static_cast<int32_t>(local);
    return t;
  }

  // "" when supported, else the reason.
  std::string supports(const std::string& id, strata_op_t op, strata_dtype_t dtype,
                       strata_redop_t redop, uint64_t count, const strata_team_desc_t& t) {
    strata_call_desc_t call{};
    call.struct_size = sizeof call;
    call.op = op;
    call.dtype = dtype;
    call.redop = redop;
    call.count = count;
    call.device_type = device_.type;
    call.team = &t;
    char text[512] = {0};
    const AlgorithmEntry& a = algo(id);
    const strata_status_t st = a.table.supports(a.table.user_data, &call, {text, sizeof text});
    if (st == STRATA_OK) return "";
    EXPECT_EQ(st, STRATA_NOT_SUPPORTED) << text;
    return text[0] == '\0' ? "(no reason)" : text;
  }

  std::shared_ptr<Runtime> runtime_;
  strata_device_t device_{};
};

TEST_F(MpiPlugin, RegistersSixNativeAlgorithmsAndTheResolver) {
  for (const char* op : {"all_reduce", "broadcast", "all_gather", "reduce_scatter", "reduce",
                         "barrier"}) {
    const AlgorithmEntry& a = algo(std::string("mpi/") + op + "/native");
    EXPECT_EQ(a.table.scope, static_cast<uint32_t>(STRATA_SCOPE_CROSS_PROCESS)) << op;
  }
}

TEST_F(MpiPlugin, AcceptsEveryDtypeAndOperatorOnHostMemory) {
  const auto t = team(0, 3);
  for (strata_dtype_t d = 0; d < STRATA_DTYPE_COUNT; ++d) {
    for (strata_redop_t op = 0; op < STRATA_REDOP_COUNT; ++op) {
      EXPECT_EQ(supports("mpi/all_reduce/native", STRATA_ALL_REDUCE, d, op, 7, t), "");
      EXPECT_EQ(supports("mpi/reduce_scatter/native", STRATA_REDUCE_SCATTER, d, op, 7, t), "");
      EXPECT_EQ(supports("mpi/reduce/native", STRATA_REDUCE, d, op, 7, t), "");
    }
    EXPECT_EQ(supports("mpi/broadcast/native", STRATA_BROADCAST, d, 0, 7, t), "");
  }
}

TEST_F(MpiPlugin, DeclinesWhatItCannotServe) {
  const std::string many = supports("mpi/all_reduce/native", STRATA_ALL_REDUCE, STRATA_F32,
                                    STRATA_SUM, 7, team(0, 2, /*local=*/2));
  EXPECT_NE(many.find("one buffer per process"), std::string::npos) << many;
  const std::string huge = supports("mpi/all_reduce/native", STRATA_ALL_REDUCE, STRATA_F64,
                                    STRATA_SUM, uint64_t{INT_MAX} / 4, team(0, 2));
  EXPECT_NE(huge.find("2 GiB"), std::string::npos) << huge;
  // all_gather moves count x processes per process.
  const std::string gathered = supports("mpi/all_gather/native", STRATA_ALL_GATHER, STRATA_F32, 0,
                                        uint64_t{INT_MAX} / 8, team(0, 4));
  EXPECT_NE(gathered.find("2 GiB"), std::string::npos) << gathered;
  const std::string unknown = supports("mpi/all_reduce/native", STRATA_ALL_REDUCE,
                                       STRATA_DTYPE_COUNT, STRATA_SUM, 7, team(0, 2));
  EXPECT_NE(unknown.find("unknown to this build"), std::string::npos) << unknown;
}

TEST_F(MpiPlugin, EstimatesGrowWithSize) {
  const auto t = team(0, 4);
  strata_call_desc_t call{};
  call.struct_size = sizeof call;
  call.op = STRATA_ALL_REDUCE;
  call.dtype = STRATA_F32;
  call.team = &t;
  const AlgorithmEntry& a = algo("mpi/all_reduce/native");
  double small = 0, large = 0;
  call.count = 2;
  ASSERT_EQ(a.table.estimate(a.table.user_data, &call, &small), STRATA_OK);
  call.count = 1 << 20;
  ASSERT_EQ(a.table.estimate(a.table.user_data, &call, &large), STRATA_OK);
  EXPECT_GT(small, 0);
  EXPECT_GT(large, 100 * small);
}

TEST_F(MpiPlugin, BadOptionsRefuseThePluginNamingThem) {
  auto rt = load("strata: 1\nplugins: {options: {mpi: {all_reduce: fastest}}}\n");
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("plugins.options.mpi.all_reduce: 'fastest'"),
            std::string::npos) << rt.status();
  setenv("STRATA_MPI_ALL_REDUCE", "sideways", 1);
  rt = load();
  unsetenv("STRATA_MPI_ALL_REDUCE");
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("STRATA_MPI_ALL_REDUCE: 'sideways'"), std::string::npos)
      << rt.status();
  rt = load("strata: 1\nplugins: {options: {mpi: {eager_bytes: lots}}}\n");
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("plugins.options.mpi.eager_bytes"), std::string::npos)
      << rt.status();
  EXPECT_TRUE(load("strata: 1\nplugins: {options: {mpi: {all_reduce: ring, ring_bytes: 1MiB}}}\n")
                  .ok());
  EXPECT_TRUE(load("strata: 1\nplugins: {options: {mpi: {eager_bytes: 64KiB}}}\n").ok());
  EXPECT_TRUE(load("strata: 1\nplugins: {options: {mpi: {eager_bytes: 0}}}\n").ok());
  rt = load("strata: 1\nplugins: {options: {mpi: {halving_doubling_bytes: -1}}}\n");
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("plugins.options.mpi.halving_doubling_bytes"),
            std::string::npos) << rt.status();
  EXPECT_TRUE(
      load("strata: 1\nplugins: {options: {mpi: {all_reduce: halving_doubling}}}\n").ok());
  EXPECT_TRUE(load("strata: 1\nplugins: {options: {mpi: {halving_doubling_bytes: 0}}}\n").ok());
}

TEST_F(MpiPlugin, ResolverDeclinesOutsideAnMpiLaunch) {
  auto spec = resolve_cluster(runtime_->registry(), "mpi");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("not launched by mpirun"), std::string::npos)
      << spec.status();
}

TEST_F(MpiPlugin, TeamCreateNamesTheRanksThatNeverCame) {
  MapStore store;
  auto t = team(0, 3);
  t.store = static_cast<Store*>(&store);
  t.deadline_ns = to_ns(deadline_after(std::chrono::milliseconds(200)));
  const AlgorithmEntry& a = algo("mpi/barrier/native");
  void* state = nullptr;
  char text[1024] = {0};
  EXPECT_EQ(a.table.team_create(a.table.user_data, &t, &state, {text, sizeof text}),
            STRATA_TIMED_OUT);
  EXPECT_NE(std::string(text).find("rank(s) 1, 2 of 3"), std::string::npos) << text;
}

TEST_F(MpiPlugin, TeamCreateWithoutMpirunOrOmpiServerSaysWhatToDo) {
  MapStore store;
  std::string messages[2];
  strata_status_t status[2] = {STRATA_OK, STRATA_OK};
  const AlgorithmEntry& a = algo("mpi/all_reduce/native");
  auto rank = [&](int r) {
    auto t = team(r, 2);
    t.store = static_cast<Store*>(&store);
    t.deadline_ns = to_ns(deadline_after(std::chrono::seconds(20)));
    void* state = nullptr;
    char text[1024] = {0};
    status[r] = a.table.team_create(a.table.user_data, &t, &state, {text, sizeof text});
    messages[r] = text;
  };
  std::thread other(rank, 1);
  rank(0);
  other.join();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(status[r], STRATA_NOT_SUPPORTED) << messages[r];
    EXPECT_NE(messages[r].find("mpirun"), std::string::npos) << messages[r];
    EXPECT_NE(messages[r].find("ompi-server"), std::string::npos) << messages[r];
  }
}

}  // namespace
}  // namespace strata
