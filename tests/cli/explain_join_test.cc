// `strata explain --join` under `strata launch`: the job's team with its
// hosts (STRATA_HOST_ID per worker stands for a host each), and how a call
// runs on it — flat, or composed by host with each level's algorithm. The
// host_aware test plugin plays a shared-memory plugin (one_host) and a
// network one (between_hosts); grpc_ring and mpi are disabled so the
// choice does not depend on what this build found.
#include <sys/stat.h>

#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace strata::cli_test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

// Runs `strata explain --join ARGS` on `workers` workers of one launch,
// worker i on host "h<i / per_host>"; the config disables grpc_ring and mpi.
CliResult explain_in_job(int workers, int per_host, const std::string& args) {
  const std::string config = temp_path("join.yaml");
  std::ofstream(config) << "strata: 1\nplugins:\n  disable: [grpc_ring, mpi]\n"
                        << "cluster:\n  rendezvous_timeout: 30s\n";
  const std::string worker = temp_path("join_worker.sh");
  std::ofstream(worker) << "#!/bin/sh\n"
                        << "STRATA_HOST_ID=h$((RANK / " << per_host << ")) exec "
                        << quoted(STRATA_CLI_PATH) << " explain --join " << args
                        << " --config " << quoted(config) << "\n";
  ::chmod(worker.c_str(), 0755);
  return run_cli("launch -n " + std::to_string(workers) + " -q --no-ompi-server -- " +
                     quoted(worker),
                 HOST_AWARE_PLUGIN_DIR);
}

TEST(CliExplainJoin, TwoProcessesWithTwoHostIdsAreOnTwoHosts) {
  const CliResult r = explain_in_job(2, 1, "all_reduce 1MiB");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("[worker-0] team:   2 processes x 1 cpu device(s) (cpu:0) on "
                               "2 host(s); this process: rank 0 on host 0 (ranks 0)"));
  EXPECT_THAT(r.out, HasSubstr("[worker-1] team:   2 processes x 1 cpu device(s) (cpu:0) on "
                               "2 host(s); this process: rank 1 on host 1 (ranks 1)"));
  // The flat team spans hosts: one_host declines it.
  EXPECT_THAT(r.out, ContainsRegex("host_aware/all_reduce/one_host .*declined: serves the "
                                   "processes of one host; this team spans 2 hosts"));
  EXPECT_THAT(r.out, HasSubstr("[worker-0] hierarchy: flat (collectives.hierarchy: auto)"));
  EXPECT_THAT(r.out, HasSubstr("one process per host"));
}

TEST(CliExplainJoin, TwoHostsOfTwoShowTheLevelsAndTheirAlgorithms) {
  const CliResult r = explain_in_job(4, 2, "all_reduce 1MiB");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("on 2 host(s); this process: rank 3 on host 1 (ranks 2, 3)"));
  EXPECT_THAT(r.out, HasSubstr("[worker-0] hierarchy: composed by host (collectives.hierarchy: "
                               "auto)"));
  EXPECT_THAT(r.out, ContainsRegex("worker-0\\] why: +composed by host: levels [0-9.]+ [um]s < "
                                   "host_aware/all_reduce/between_hosts over all 4 processes"));
  EXPECT_THAT(r.out, ContainsRegex("worker-0\\] +1 +intra-host +2 processes of the largest host "
                                   "+reduce +host_aware/reduce/one_host"));
  EXPECT_THAT(r.out, ContainsRegex("worker-0\\] +2 +inter-host +2 host leaders +all_reduce "
                                   "+host_aware/all_reduce/between_hosts"));
  EXPECT_THAT(r.out, ContainsRegex("worker-0\\] +3 +intra-host .* broadcast "
                                   "+host_aware/broadcast/one_host"));
}

TEST(CliExplainJoin, JsonCarriesTheHierarchy) {
  const CliResult r = explain_in_job(4, 2, "reduce_scatter 64KiB --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Worker 0's document: its lines, without the prefix.
  std::string doc;
  for (size_t at = r.out.find("[worker-0] "); at != std::string::npos;
       at = r.out.find("[worker-0] ", at + 1)) {
    const size_t end = r.out.find('\n', at);
    doc += r.out.substr(at + 11, end - at - 11) + "\n";
  }
  const auto json = nlohmann::json::parse(doc);
  ASSERT_TRUE(json.contains("hierarchy")) << doc;
  EXPECT_TRUE(json["hierarchy"]["composed"].get<bool>());
  ASSERT_EQ(json["hierarchy"]["steps"].size(), 3u);
  EXPECT_EQ(json["hierarchy"]["steps"][1]["level"], "inter-host");
  EXPECT_EQ(json["hierarchy"]["steps"][1]["op"], "reduce_scatter");
  EXPECT_EQ(json["hierarchy"]["steps"][0]["algorithm"], "host_aware/reduce/one_host");
}

}  // namespace
}  // namespace strata::cli_test
