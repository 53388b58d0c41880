// The job token loader: the order of its sources, and a clear refusal for
// every token file a careful operator would not want used.
#include "strata/sdk/job_token.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace strata::sdk {
namespace {

using ::testing::HasSubstr;

class JobTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("strata_job_token_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ::unsetenv(kJobTokenFileEnv);
    ::unsetenv(kJobTokenEnv);
  }
  void TearDown() override {
    ::unsetenv(kJobTokenFileEnv);
    ::unsetenv(kJobTokenEnv);
    std::filesystem::remove_all(dir_);
  }
  std::string file_with(const std::string& name, const std::string& text, mode_t mode) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(JobTokenTest, NoSourceIsNotAnErrorButGivesNoToken) {
  JobToken token;
  std::string error;
  ASSERT_TRUE(load_job_token("", &token, &error)) << error;
  EXPECT_TRUE(token.value.empty());
}

TEST_F(JobTokenTest, ConfiguredFileWinsOverTheEnvironment) {
  const std::string path = file_with("config.token", "  0123456789abcdef-config\n", 0600);
  ::setenv(kJobTokenEnv, "0123456789abcdef-environment", 1);
  JobToken token;
  std::string error;
  ASSERT_TRUE(load_job_token(path, &token, &error)) << error;
  EXPECT_EQ(token.value, "0123456789abcdef-config");
  EXPECT_THAT(token.source, HasSubstr(path));
}

TEST_F(JobTokenTest, FileFromTheEnvironmentWinsOverTheValue) {
  ::setenv(kJobTokenFileEnv, file_with("env.token", "0123456789abcdef-file", 0400).c_str(), 1);
  ::setenv(kJobTokenEnv, "0123456789abcdef-environment", 1);
  JobToken token;
  std::string error;
  ASSERT_TRUE(load_job_token("", &token, &error)) << error;
  EXPECT_EQ(token.value, "0123456789abcdef-file");
  EXPECT_THAT(token.source, HasSubstr(kJobTokenFileEnv));
}

TEST_F(JobTokenTest, ValueFromTheEnvironment) {
  ::setenv(kJobTokenEnv, "0123456789abcdef-environment", 1);
  JobToken token;
  std::string error;
  ASSERT_TRUE(load_job_token("", &token, &error)) << error;
  EXPECT_EQ(token.value, "0123456789abcdef-environment");
  EXPECT_EQ(token.source, std::string("environment ") + kJobTokenEnv);
}

TEST_F(JobTokenTest, RefusesAFileOthersCanRead) {
  const std::string path = file_with("open.token", "0123456789abcdef", 0644);
  JobToken token;
  std::string error;
  EXPECT_FALSE(load_job_token(path, &token, &error));
  EXPECT_THAT(error, HasSubstr("mode 644"));
  EXPECT_THAT(error, HasSubstr("chmod 600"));
}

TEST_F(JobTokenTest, RefusesAMissingEmptyShortOrHugeFile) {
  JobToken token;
  std::string error;
  EXPECT_FALSE(load_job_token((dir_ / "absent").string(), &token, &error));
  EXPECT_THAT(error, HasSubstr("cannot open"));
  EXPECT_FALSE(load_job_token(file_with("empty", " \n", 0600), &token, &error));
  EXPECT_THAT(error, HasSubstr("is empty"));
  EXPECT_FALSE(load_job_token(file_with("short", "abc", 0600), &token, &error));
  EXPECT_THAT(error, HasSubstr("at least 16"));
  EXPECT_FALSE(load_job_token(file_with("huge", std::string(5000, 'x'), 0600), &token, &error));
  EXPECT_THAT(error, HasSubstr("longer than"));
  EXPECT_FALSE(load_job_token(dir_.string(), &token, &error));
  EXPECT_THAT(error, HasSubstr("not a regular file"));
}

TEST_F(JobTokenTest, ComparesWholeTokens) {
  EXPECT_TRUE(job_tokens_equal("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(job_tokens_equal("0123456789abcdef", "0123456789abcdeF"));
  EXPECT_FALSE(job_tokens_equal("0123456789abcdef", "0123456789abcde"));
  EXPECT_FALSE(job_tokens_equal("", "x"));
}

TEST_F(JobTokenTest, GeneratedTokensAreFreshAndRoundTripThroughAPrivateFile) {
  const std::string first = generate_job_token();
  const std::string second = generate_job_token();
  EXPECT_EQ(first.size(), 64u);
  EXPECT_NE(first, second);
  const std::string path = (dir_ / "written.token").string();
  std::string error;
  ASSERT_TRUE(write_job_token_file(path, first, &error)) << error;
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  JobToken token;
  ASSERT_TRUE(load_job_token(path, &token, &error)) << error;
  EXPECT_EQ(token.value, first);
}

}  // namespace
}  // namespace strata::sdk
