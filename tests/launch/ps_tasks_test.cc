// `strata launch --ps N`: N parameter server tasks of the same program next
// to the workers, each told its role by TF_CONFIG (job "ps"), their output
// prefixed [ps-i], and the launch ending when every task has exited.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

std::string run(const std::string& command, int* exit_code) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(LaunchPs, PsTasksGetTheirRoleAndTheClusterListsThem) {
  int code = -1;
  const std::string out = run(std::string(STRATA_CLI) +
                                  " launch -n 2 --ps 1 --timeout 20s -- /bin/sh -c 'echo \"$TF_CONFIG\"'",
                              &code);
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("launching 2 workers and 1 ps task:"), std::string::npos) << out;
  EXPECT_NE(out.find(R"([ps-0] {"cluster":{"ps":["127.0.0.1:)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("task":{"index":0,"type":"ps"})"), std::string::npos) << out;
  EXPECT_NE(out.find(R"([worker-1] {"cluster":{"ps":["127.0.0.1:)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("task":{"index":1,"type":"worker"})"), std::string::npos) << out;
}

TEST(LaunchPs, AFailedPsTaskIsNamedAndStopsTheJob) {
  int code = -1;
  const std::string out = run(std::string(STRATA_CLI) +
                                  " launch -n 1 --ps 1 --grace 1s --timeout 20s -- /bin/sh -c "
                                  "'case \"$TF_CONFIG\" in *\\\"ps\\\"}*) exit 3;; *) sleep 10;; esac'",
                              &code);
  EXPECT_EQ(code, 3) << out;
  EXPECT_NE(out.find("ps 0 exited with status 3"), std::string::npos) << out;
}

TEST(LaunchPs, NoPsByDefaultAndBadCountsAreRefused) {
  int code = -1;
  const std::string out =
      run(std::string(STRATA_CLI) + " launch -n 1 -- /bin/sh -c 'echo \"$TF_CONFIG\"'", &code);
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out.find("\"ps\""), std::string::npos) << out;
  run(std::string(STRATA_CLI) + " launch -n 1 --ps -1 -- true", &code);
  EXPECT_EQ(code, 2);
}

}  // namespace
