// The "file" store beyond the shared semantics: several processes counting
// in one directory (flock makes add exact), file names that cannot escape
// the directory, and errors that name the directory.
#include "core/cluster/file_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/stores/store_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Peer;
using testing::TempDir;

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = testing::make_runtime();
    ASSERT_NE(rt_, nullptr);
    type_ = rt_->registry().find_store_type("file");
    ASSERT_NE(type_, nullptr);
  }
  StatusOr<std::unique_ptr<Store>> open(const std::string& address) {
    return open_store(*type_, address, 0, 1, deadline_after(5s));
  }

  TempDir dir_;
  std::shared_ptr<Runtime> rt_;
  const StoreTypeEntry* type_ = nullptr;
};

TEST_F(FileStoreTest, ProcessesCountingTogetherLoseNoAdd) {
  constexpr int kPeers = 4;
  constexpr int kAdds = 100;
  const std::string address = dir_.str() + "/shared";
  std::vector<std::unique_ptr<Peer>> peers;
  for (int r = 0; r < kPeers; ++r) {
    peers.push_back(std::make_unique<Peer>(
        std::vector<std::string>{"count", "file", address, std::to_string(r),
                                 std::to_string(kPeers), std::to_string(kAdds)},
        dir_.path() / ("peer" + std::to_string(r) + ".log")));
  }
  for (auto& p : peers) EXPECT_EQ(p->wait(), 0) << p->output();
  auto store = open(address);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(*(*store)->add("counter", 0), kPeers * kAdds);
  for (int r = 0; r < kPeers; ++r) {
    EXPECT_EQ(*(*store)->get("done/" + std::to_string(r), deadline_after(1s)), "ok");
  }
}

TEST_F(FileStoreTest, FileNamesStayInsideTheDirectory) {
  EXPECT_EQ(file_store_file_name("plain-key_1"), "k_plain-key_1");
  EXPECT_EQ(file_store_file_name("a/b"), "k_a%2fb");
  EXPECT_EQ(file_store_file_name(".."), "k_%2e%2e");
  EXPECT_EQ(file_store_file_name(""), "k_");
  const std::string long1 = file_store_file_name(std::string(300, 'x') + "1");
  const std::string long2 = file_store_file_name(std::string(300, 'x') + "2");
  EXPECT_LE(long1.size(), 200u);
  EXPECT_NE(long1, long2);

  const std::string address = dir_.str() + "/inner";
  auto store = open(address);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->set("../../outside", "x").ok());
  // Everything the store wrote is a direct child of its directory.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
    if (entry.is_regular_file()) {
      EXPECT_EQ(entry.path().parent_path(), std::filesystem::path(address)) << entry.path();
    }
  }
}

TEST_F(FileStoreTest, NoTemporaryFilesAreLeftBehind) {
  const std::string address = dir_.str() + "/clean";
  auto store = open(address);
  ASSERT_TRUE(store.ok());
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE((*store)->set("k" + std::to_string(i % 3), std::string(1000, 'v')).ok());
    ASSERT_TRUE((*store)->add("n", 1).ok());
  }
  for (const auto& entry : std::filesystem::directory_iterator(address)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == ".lock" || name.rfind("k_", 0) == 0) << name;
  }
}

TEST_F(FileStoreTest, GetTimeoutNamesTheKeyAndTheDirectory) {
  const std::string address = dir_.str() + "/waiting";
  auto store = open(address);
  ASSERT_TRUE(store.ok());
  auto v = (*store)->get("nobody/writes", deadline_after(100ms));
  EXPECT_EQ(v.status().code(), Code::kTimedOut);
  EXPECT_THAT(v.status().message(), HasSubstr("key 'nobody/writes'"));
  EXPECT_THAT(v.status().message(), HasSubstr(address));
}

TEST_F(FileStoreTest, ADirectoryThatCannotBeMadeIsAnErrorNamingIt) {
  const std::filesystem::path file = dir_.path() / "a_file";
  std::ofstream(file) << "not a directory";
  const std::string address = (file / "store").string();
  auto store = open(address);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Code::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("'" + address + "'"));

  auto empty = open("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("needs a directory"));
}

}  // namespace
}  // namespace strata
