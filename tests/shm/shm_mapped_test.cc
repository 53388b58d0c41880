// The pieces under the mapped algorithms, in one process: the shm_host
// heap finds a buffer from a pointer into an allocation, and a team's
// mappings of a peer's buffers (here this process's own, through
// /proc/self/fd) read what the peer wrote, follow a free, and refuse a
// descriptor that no longer holds the buffer published. The calls
// themselves run across processes in shm_reduce_test and shm_fault_test,
// and in the conformance suite on shm_host devices.
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "peer_buffers.h"
#include "shared_heap.h"
#include "shm_algorithm.h"
#include "strata/sdk/error.h"

namespace strata::shm::testing {
namespace {

SharedHeap& heap() { return SharedHeap::instance(); }

TEST(SharedHeapTest, FindsOnlyRangesInsideAnAllocation) {
  auto* p = static_cast<std::byte*>(heap().allocate(10000));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  const auto whole = heap().find(p, 10000);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->offset, 0u);
  EXPECT_EQ(whole->bytes, 12288u) << "whole pages, as mapped";
  EXPECT_GE(whole->fd, 0);
  EXPECT_NE(whole->inode, 0u);
  const auto inside = heap().find(p + 100, 50);
  ASSERT_TRUE(inside.has_value());
  EXPECT_EQ(inside->offset, 100u);
  EXPECT_EQ(inside->id, whole->id);
  EXPECT_FALSE(heap().find(p + 12000, 1000).has_value()) << "runs past the allocation";
  int on_stack = 0;
  EXPECT_FALSE(heap().find(&on_stack, sizeof on_stack).has_value());
  const uint64_t frees = heap().frees();
  heap().free(p);
  EXPECT_EQ(heap().frees(), frees + 1);
  EXPECT_FALSE(heap().find(p, 1).has_value());
  heap().free(&on_stack);  // not the heap's: ignored
  EXPECT_EQ(heap().frees(), frees + 1);
}

// The permissions of this process's mapping holding `address`, as
// /proc/self/maps gives them ("r--s"), or "" if none holds it.
std::string permissions_at(const void* address) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  for (std::string line; std::getline(maps, line);) {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s", &begin, &end, perms) == 3 &&
        begin <= at && at < end) {
      return perms;
    }
  }
  return "";
}

// Only a buffer a call writes into (the mapped all-reduce's outputs) is
// mapped writable: a stray write into one only read faults in the writer
// instead of changing the peer's data.
TEST(PeerBuffersTest, ReadBuffersStayReadOnlyWrittenOnesTakeWrites) {
  PeerBuffers peers(2);
  auto* a = static_cast<char*>(heap().allocate(4096));
  std::strcpy(a, "owner");
  const auto placed = heap().find(a, 6);
  ASSERT_TRUE(placed.has_value());
  peers.begin_call(1, heap().frees());
  const std::byte* read = peers.address(1, ::getpid(), *placed, 6);
  EXPECT_EQ(permissions_at(read), "r--s");
  std::byte* written = peers.writable_address(1, ::getpid(), *placed, 6);
  EXPECT_EQ(static_cast<const std::byte*>(written), read) << "the same mapping, now writable";
  EXPECT_EQ(permissions_at(read), "rw-s");
  reinterpret_cast<char*>(written)[0] = 'O';
  EXPECT_STREQ(a, "Owner") << "the owner sees the write";
  heap().free(a);
}

TEST(PeerBuffersTest, ReadsThePublishedBufferAndRemapsAfterAFree) {
  PeerBuffers peers(2);
  auto* a = static_cast<char*>(heap().allocate(5000));
  std::strcpy(a + 64, "first");
  const auto placed_a = heap().find(a + 64, 6);
  ASSERT_TRUE(placed_a.has_value());
  peers.begin_call(1, heap().frees());
  const std::byte* seen = peers.address(1, ::getpid(), *placed_a, 6);
  EXPECT_NE(static_cast<const void*>(seen), static_cast<const void*>(a + 64)) << "a mapping of its own";
  EXPECT_STREQ(reinterpret_cast<const char*>(seen), "first");
  a[64] = 'F';  // the peer writes again: the same mapping sees it
  peers.begin_call(1, heap().frees());
  EXPECT_EQ(peers.address(1, ::getpid(), *placed_a, 6), seen);
  EXPECT_STREQ(reinterpret_cast<const char*>(seen), "First");
  EXPECT_EQ(peers.mapped(1), 1u);

  heap().free(a);
  auto* b = static_cast<char*>(heap().allocate(5000));
  std::strcpy(b, "second");
  const auto placed_b = heap().find(b, 7);
  ASSERT_TRUE(placed_b.has_value());
  EXPECT_NE(placed_b->id, placed_a->id);
  peers.begin_call(1, heap().frees());
  EXPECT_EQ(peers.mapped(1), 0u) << "the freed allocation's mapping was kept";
  const std::byte* now = peers.address(1, ::getpid(), *placed_b, 7);
  EXPECT_STREQ(reinterpret_cast<const char*>(now), "second");
  heap().free(b);
}

// A call may look up more buffers than the mappings kept between calls:
// none is unmapped before the call ends, and the next call starts afresh.
TEST(PeerBuffersTest, NothingACallLookedUpIsUnmappedBeforeItEnds) {
  constexpr int kBuffers = 70;
  PeerBuffers peers(2);
  std::vector<char*> owned;
  std::vector<const std::byte*> seen;
  peers.begin_call(1, heap().frees());
  for (int i = 0; i < kBuffers; ++i) {
    owned.push_back(static_cast<char*>(heap().allocate(4096)));
    owned.back()[0] = static_cast<char>('a' + i % 26);
    seen.push_back(peers.address(1, ::getpid(), *heap().find(owned.back(), 1), 1));
  }
  EXPECT_EQ(peers.mapped(1), static_cast<size_t>(kBuffers));
  for (int i = 0; i < kBuffers; ++i) {
    EXPECT_EQ(static_cast<char>(*seen[static_cast<size_t>(i)]), 'a' + i % 26) << "buffer " << i;
  }
  peers.begin_call(1, heap().frees());
  EXPECT_EQ(peers.mapped(1), 0u);
  for (char* p : owned) heap().free(p);
}

TEST(PeerBuffersTest, ADescriptorThatNoLongerHoldsTheBufferIsRefused) {
  PeerBuffers peers(2);
  void* p = heap().allocate(4096);
  const Placement good = *heap().find(p, 4096);
  const auto refused = [&](const Placement& placed, uint64_t length, const std::string& why) {
    try {
      peers.address(1, ::getpid(), placed, length);
      ADD_FAILURE() << "mapped: " << why;
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), STRATA_DATA_LOSS);
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  Placement other = good;
  other.inode += 1;  // as if the descriptor had been reused by another file
  refused(other, 4096, "is not the shm_host buffer it published");
  refused(Placement{}, 1, "published no shm_host buffer");
  refused(good, 4097, "holds 4096 bytes at offset 0 of 4096, not the 4097 this call uses");
  heap().free(p);
}

// A forked child (a data-loader worker) inherits the heap's list but not
// its memory: it must not find the parent's buffers.
TEST(SharedHeapTest, AForkedChildFindsNoneOfItsParentsBuffers) {
  void* p = heap().allocate(4096);
  ASSERT_TRUE(heap().find(p, 1).has_value());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(heap().find(p, 1).has_value() ? 1 : 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child found the parent's buffer";
  EXPECT_TRUE(heap().find(p, 1).has_value()) << "the parent lost its own";
  heap().free(p);
}

// What AUTO ranks on shm_host buffers (the cost model, README.md): the
// mapped algorithms from a few KiB up, in place and out of place, the
// staging ones below.
TEST(MappedCostTest, AutoTakesMappedWhereItSavesACopy) {
  const ShmOptions options;
  strata_device_t device{0, 0};
  strata_team_desc_t team{};
  team.struct_size = sizeof team;
  team.process_count = 2;
  team.local_count = 1;
  team.local_devices = &device;
  team.replica_count = 2;
  const auto seconds = [&](sdk::Algorithm& a, strata_op_t op, uint64_t count, bool in_place) {
    strata_call_desc_t call{};
    call.struct_size = sizeof call;
    call.op = op;
    call.dtype = STRATA_F32;
    call.count = count;
    call.in_place = in_place ? 1 : 0;
    call.team = &team;
    return a.estimate(call).value_or(-1);
  };
  constexpr uint64_t kOneMiB = 1 << 18;  // of f32 elements
  auto sliced = make_all_reduce_sliced(options);
  auto mapped = make_all_reduce_mapped(options, 0);
  for (const bool in_place : {false, true}) {
    EXPECT_LT(seconds(*mapped, STRATA_ALL_REDUCE, kOneMiB, in_place),
              seconds(*sliced, STRATA_ALL_REDUCE, kOneMiB, in_place));
    EXPECT_GT(seconds(*mapped, STRATA_ALL_REDUCE, 2, in_place),
              seconds(*sliced, STRATA_ALL_REDUCE, 2, in_place));
  }
  for (const bool in_place : {false, true}) {
    auto copy = make_broadcast_copy(options);
    auto read = make_broadcast_mapped(options, 0);
    EXPECT_LT(seconds(*read, STRATA_BROADCAST, kOneMiB, in_place),
              seconds(*copy, STRATA_BROADCAST, kOneMiB, in_place));
    EXPECT_GT(seconds(*read, STRATA_BROADCAST, 2, in_place),
              seconds(*copy, STRATA_BROADCAST, 2, in_place));
    auto gather = make_all_gather_copy(options);
    auto gather_mapped = make_all_gather_mapped(options, 0);
    EXPECT_LT(seconds(*gather_mapped, STRATA_ALL_GATHER, kOneMiB, in_place),
              seconds(*gather, STRATA_ALL_GATHER, kOneMiB, in_place));
    EXPECT_GT(seconds(*gather_mapped, STRATA_ALL_GATHER, 2, in_place),
              seconds(*gather, STRATA_ALL_GATHER, 2, in_place));
  }
}

}  // namespace
}  // namespace strata::shm::testing
