// `strata launch` gives every worker torch.distributed's env:// variables
// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE), so a torch program runs under it unchanged; ps tasks
// get no rank of their own.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/common/command_run.h"

namespace {

constexpr char kPrint[] =
    " -- /bin/sh -c 'echo \"torch-env $MASTER_ADDR:$MASTER_PORT rank=$RANK/$WORLD_SIZE "
    "local=$LOCAL_RANK/$LOCAL_WORLD_SIZE tf=$TF_CONFIG\"'";

// The value after `key` on the line of `prefix` ("[worker-1] "), up to a space.
std::string field(const std::string& out, const std::string& prefix, const std::string& key) {
  const size_t line = out.find(prefix + "torch-env ");
  if (line == std::string::npos) return "<no line " + prefix + ">";
  const size_t at = out.find(key, line);
  if (at == std::string::npos) return "<no " + key + ">";
  const size_t end = out.find_first_of(" \n", at + key.size());
  return out.substr(at + key.size(), end - at - key.size());
}

TEST(LaunchTorchEnv, EveryWorkerGetsTorchsEnvVariables) {
  const strata::testing::CommandRun r = strata::testing::run_command(
      std::string(STRATA_CLI) + " launch -n 2 --ps 1 --timeout 20s" + kPrint);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string& out = r.output;
  EXPECT_EQ(field(out, "[worker-0] ", "rank="), "0/2") << out;
  EXPECT_EQ(field(out, "[worker-1] ", "rank="), "1/2") << out;
  EXPECT_EQ(field(out, "[worker-0] ", "local="), "0/2") << out;
  EXPECT_EQ(field(out, "[worker-1] ", "local="), "1/2") << out;
  EXPECT_EQ(field(out, "[ps-0] ", "rank="), "/2") << out;  // no RANK for a ps task
  const std::string master = field(out, "[worker-0] ", "torch-env ");
  EXPECT_EQ(master.rfind("127.0.0.1:", 0), 0u) << out;
  EXPECT_EQ(field(out, "[worker-1] ", "torch-env "), master) << out;
  EXPECT_EQ(field(out, "[ps-0] ", "torch-env "), master) << out;
  // The rendezvous port is none of the tasks' own.
  const std::string port = master.substr(master.find(':') + 1);
  ASSERT_FALSE(port.empty()) << out;
  EXPECT_EQ(field(out, "[worker-0] ", "tf=").find("127.0.0.1:" + port + "\""), std::string::npos)
      << out;
}

}  // namespace
