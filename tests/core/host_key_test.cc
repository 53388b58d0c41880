// core/collective/host_key.h: which host a process is on, and how a team
// numbers its hosts.
#include "core/collective/host_key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace fs = std::filesystem;

// A /proc of our own: boot_id and the two namespace entries as plain files,
// whose inodes stand in for the namespaces'.
class FakeProc {
 public:
  explicit FakeProc(const std::string& boot) {
    root_ = fs::temp_directory_path() / ("strata_host_key_" + std::to_string(::getpid()) + "_" +
                                         std::to_string(next_++));
    fs::create_directories(root_ / "sys/kernel/random");
    fs::create_directories(root_ / "self/ns");
    std::ofstream(root_ / "sys/kernel/random/boot_id") << boot << "\n";
    std::ofstream(root_ / "self/ns/pid") << "pid";
    std::ofstream(root_ / "self/ns/net") << "net";
  }
  ~FakeProc() { fs::remove_all(root_); }
  std::string root() const { return root_.string(); }
  // A new network namespace: a new inode at ns/net.
  void change_net() {
    fs::rename(root_ / "self/ns/net", root_ / "self/ns/old_net");
    std::ofstream(root_ / "self/ns/net") << "net2";
  }

 private:
  static inline int next_ = 0;
  fs::path root_;
};

TEST(HostKey, StrataHostIdOverridesDetection) {
  auto key = host_key_from("rack3-node7", "/nonexistent");
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, "id:rack3-node7");
  // Empty counts as unset.
  FakeProc proc("b00t");
  auto detected = host_key_from("", proc.root());
  ASSERT_TRUE(detected.ok()) << detected.status();
  EXPECT_THAT(*detected, StartsWith("boot:b00t/pid:"));
}

TEST(HostKey, ANewNetworkNamespaceIsANewHost) {
  FakeProc proc("b00t");
  auto before = host_key_from(nullptr, proc.root());
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_THAT(*before, HasSubstr("/net:"));
  EXPECT_EQ(*host_key_from(nullptr, proc.root()), *before);  // stable
  proc.change_net();
  auto after = host_key_from(nullptr, proc.root());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_NE(*after, *before);
}

TEST(HostKey, AnotherBootIsAnotherHost) {
  FakeProc a("boot-a");
  FakeProc b("boot-b");
  EXPECT_NE(*host_key_from(nullptr, a.root()), *host_key_from(nullptr, b.root()));
}

TEST(HostKey, WithoutProcTheErrorSaysToSetStrataHostId) {
  auto key = host_key_from(nullptr, "/nonexistent");
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(key.status().message(), HasSubstr("/nonexistent/sys/kernel/random/boot_id"));
  EXPECT_THAT(key.status().message(), HasSubstr("STRATA_HOST_ID"));
}

TEST(HostKey, ThisProcessHasOne) {
  if (!fs::exists("/proc/sys/kernel/random/boot_id")) GTEST_SKIP() << "no /proc here";
  auto key = host_key_from(nullptr, "/proc");
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_THAT(*key, StartsWith("boot:"));
  EXPECT_THAT(*key, HasSubstr("/pid:"));
}

TEST(HostKey, HostsAreNumberedByTheirLowestRank) {
  EXPECT_THAT(number_hosts({"b", "a", "b", "c", "a"}), ElementsAre(0, 1, 0, 2, 1));
  EXPECT_THAT(number_hosts({"x", "x", "x"}), ElementsAre(0, 0, 0));
  EXPECT_THAT(number_hosts({"x"}), ElementsAre(0));
}

}  // namespace
}  // namespace strata
