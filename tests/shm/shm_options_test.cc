// The plugin's options as an operator sets them (STRATA_SHM_* here; the
// config's plugins.options.shm.* take the same path), and the spin a team
// gets from them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "shm_harness.h"
#include "shm_options.h"
#include "strata/sdk/error.h"

namespace strata::shm::testing {
namespace {

using ::testing::HasSubstr;

class ShmOptionsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    ::unsetenv("STRATA_SHM_SPIN_US");
    ::unsetenv("STRATA_SHM_STAGING");
  }
  FileStoreHost host_{::testing::TempDir()};
};

TEST_F(ShmOptionsTest, SpinIsDecidedPerTeamUnlessSet) {
  const ShmOptions automatic = ShmOptions::from_host();
  EXPECT_EQ(automatic.spin_for(2, 2).count(), ShmOptions::kSpinAlone);
  EXPECT_EQ(automatic.spin_for(4, 2).count(), ShmOptions::kSpinShared)
      << "more ranks than processors: a spinner holds the core its peer needs";
  ::setenv("STRATA_SHM_SPIN_US", "auto", 1);
  EXPECT_EQ(ShmOptions::from_host().spin_for(3, 2).count(), ShmOptions::kSpinShared);
  ::setenv("STRATA_SHM_SPIN_US", "0", 1);
  EXPECT_EQ(ShmOptions::from_host().spin_for(2, 64).count(), 0);
  ::setenv("STRATA_SHM_SPIN_US", "1500", 1);
  EXPECT_EQ(ShmOptions::from_host().spin_for(8, 2).count(), 1500);
}

TEST_F(ShmOptionsTest, ABadSpinIsRefusedNamingTheVariable) {
  for (const char* bad : {"-1", "2.5", "forever", "100001"}) {
    ::setenv("STRATA_SHM_SPIN_US", bad, 1);
    try {
      ShmOptions::from_host();
      ADD_FAILURE() << bad << " was accepted";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT);
      EXPECT_THAT(e.what(), HasSubstr(std::string("STRATA_SHM_SPIN_US: '") + bad + "'"));
      // -1 and "forever" are not positive numbers; 2.5 and 100001 not whole or too many.
      EXPECT_THAT(e.what(), ::testing::AnyOf(HasSubstr("is not a positive number"),
                                             HasSubstr("'auto' nor a whole number")));
    }
  }
}

TEST_F(ShmOptionsTest, StagingIsReadAndABadOneNamed) {
  ::setenv("STRATA_SHM_STAGING", "streaming", 1);
  EXPECT_EQ(ShmOptions::from_host().staging, Staging::kStreaming);
  ::setenv("STRATA_SHM_STAGING", "cached", 1);
  EXPECT_EQ(ShmOptions::from_host().staging, Staging::kCached);
  ::setenv("STRATA_SHM_STAGING", "nontemporal", 1);
  try {
    ShmOptions::from_host();
    ADD_FAILURE() << "'nontemporal' was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find(
                  "STRATA_SHM_STAGING: 'nontemporal' is not one of auto, cached, streaming"),
              std::string::npos)
        << e.what();
  }
  ::unsetenv("STRATA_SHM_STAGING");
  EXPECT_EQ(ShmOptions::from_host().staging, Staging::kAuto);
}

}  // namespace
}  // namespace strata::shm::testing
