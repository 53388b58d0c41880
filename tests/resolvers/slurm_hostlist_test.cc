// Slurm's compact host and task lists, expanded as Slurm expands them, and
// every malformed list refused with the text at fault quoted.
#include "core/cluster/resolvers/slurm_hostlist.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "resolver_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using testing::error_of;

std::vector<std::string> hosts(std::string_view text) {
  auto result = expand_slurm_hostlist(text);
  EXPECT_TRUE(result.ok()) << text << ": " << result.status();
  return result.ok() ? *result : std::vector<std::string>{};
}

TEST(SlurmHostlist, PlainNamesAndCommaLists) {
  EXPECT_THAT(hosts("login"), ElementsAre("login"));
  EXPECT_THAT(hosts("a,b.example.com,c-1"), ElementsAre("a", "b.example.com", "c-1"));
}

TEST(SlurmHostlist, RangesAndSinglesInOneGroupKeepZeroPadding) {
  EXPECT_THAT(hosts("node[01-04,07]"),
              ElementsAre("node01", "node02", "node03", "node04", "node07"));
  EXPECT_THAT(hosts("node[5]"), ElementsAre("node5"));
  EXPECT_THAT(hosts("n[008-011]"), ElementsAre("n008", "n009", "n010", "n011"));
}

TEST(SlurmHostlist, WidthComesFromTheFirstNumberOfARange) {
  EXPECT_THAT(hosts("node[8-10]"), ElementsAre("node8", "node9", "node10"));
  EXPECT_THAT(hosts("node[98-101]"), ElementsAre("node98", "node99", "node100", "node101"));
}

TEST(SlurmHostlist, SeveralGroupsMultiplyFirstGroupOutermost) {
  EXPECT_THAT(hosts("rack[1-2]-node[01-02]"),
              ElementsAre("rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"));
  EXPECT_THAT(
      hosts("gpu[1,3]-ib[0-1].cluster"),
      ElementsAre("gpu1-ib0.cluster", "gpu1-ib1.cluster", "gpu3-ib0.cluster", "gpu3-ib1.cluster"));
}

TEST(SlurmHostlist, CommasInsideBracketsDoNotSplitNames) {
  EXPECT_THAT(hosts("a[1,3],b[2-3],login"), ElementsAre("a1", "a3", "b2", "b3", "login"));
}

TEST(SlurmHostlist, MalformedListsQuoteTheBadText) {
  EXPECT_EQ(error_of(expand_slurm_hostlist("")), "the host list is empty");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node[01-04")),
            "unclosed '[' in host list 'node[01-04'");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node01]")),
            "']' without a matching '[' in host list 'node01]'");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node[1-[2]]")),
            "nested '[' in host list 'node[1-[2]]'");
  EXPECT_EQ(error_of(expand_slurm_hostlist("a,,b")), "empty host name in host list 'a,,b'");
  EXPECT_EQ(error_of(expand_slurm_hostlist("a,b,")), "empty host name in host list 'a,b,'");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node[]")), "empty brackets '[]' in 'node[]'");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node[04-01]")),
            "range '04-01' in 'node[04-01]' ends before it starts");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node[1-x]")),
            "'1-x' in 'node[1-x]' is not a number or a range of numbers such as 01-04");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node[1,]")),
            "'' in 'node[1,]' is not a number or a range of numbers such as 01-04");
  EXPECT_EQ(error_of(expand_slurm_hostlist("node[-3]")),
            "'-3' in 'node[-3]' is not a number or a range of numbers such as 01-04");
  EXPECT_EQ(error_of(expand_slurm_hostlist("a, b")),
            "whitespace inside host list 'a, b'; Slurm writes host lists without spaces");
}

TEST(SlurmHostlist, HugeRangesAreRefusedNotExpanded) {
  EXPECT_EQ(error_of(expand_slurm_hostlist("n[1-1000000000]")),
            "range '1-1000000000' in 'n[1-1000000000]' names more than 65536 hosts");
  EXPECT_EQ(error_of(expand_slurm_hostlist("n[1-99999999999999999999999]")),
            "'1-99999999999999999999999' in 'n[1-99999999999999999999999]' is not a number or "
            "a range of numbers such as 01-04");
  EXPECT_EQ(error_of(expand_slurm_hostlist("a[1-300]b[1-300]")),
            "'a[1-300]b[1-300]' names more than 65536 hosts");
}

TEST(SlurmTasksPerNode, CountsAndRepeats) {
  auto counts = expand_slurm_tasks_per_node("2(x3),1");
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_THAT(*counts, ElementsAre(2, 2, 2, 1));
  EXPECT_THAT(*expand_slurm_tasks_per_node("4"), ElementsAre(4));
  EXPECT_THAT(*expand_slurm_tasks_per_node("1,3(x2)"), ElementsAre(1, 3, 3));
}

TEST(SlurmTasksPerNode, MalformedListsQuoteTheBadPart) {
  EXPECT_EQ(error_of(expand_slurm_tasks_per_node("")), "the tasks-per-node list is empty");
  EXPECT_EQ(error_of(expand_slurm_tasks_per_node("2(x3,1")),
            "'2(x3' in '2(x3,1' is not N or N(xM), as in 2(x3),1");
  EXPECT_EQ(error_of(expand_slurm_tasks_per_node("2(3)")),
            "'2(3)' in '2(3)' is not N or N(xM), as in 2(x3),1");
  EXPECT_EQ(error_of(expand_slurm_tasks_per_node("two")),
            "'two' in 'two' is not N or N(xM), as in 2(x3),1");
  EXPECT_EQ(error_of(expand_slurm_tasks_per_node("2,")),
            "'' in '2,' is not N or N(xM), as in 2(x3),1");
  EXPECT_EQ(error_of(expand_slurm_tasks_per_node("0(x2)")),
            "'0(x2)' in '0(x2)' counts zero tasks or nodes; every node runs at least one");
  EXPECT_EQ(error_of(expand_slurm_tasks_per_node("1(x99999)")),
            "'1(x99999)' in '1(x99999)' is larger than 65536");
}

}  // namespace
}  // namespace strata
