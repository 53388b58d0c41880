// Hierarchical composition (core/collective/composed_collective.cc): teams of
// several "processes" with several devices each, where hierarchical_copy
// covers only the local part and store_exchange only the cross-process
// part, must give exactly what one flat collective gives — for every op,
// root and operator, in place and out of place. Integers make the check
// exact, and MEAN on negative integers shows the single final division.
// Shapes with hosts add the host levels (host_composed_collective.cc,
// collectives.hierarchy: host): hosts of equal and unequal sizes, ranks in
// blocks and interleaved, with one device per process and with several.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "process_world.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kCount = 11;

int32_t value(int replica, uint64_t i) {
  return static_cast<int32_t>((replica + 1) * 3 + static_cast<int>(i % 5) - 4);
}

int32_t combine(ReduceOp op, int32_t a, int32_t b) {
  switch (op) {
    case ReduceOp::kMin: return std::min(a, b);
    case ReduceOp::kMax: return std::max(a, b);
    case ReduceOp::kProd: return a * b;
    default: return a + b;
  }
}

// The flat reference: element i reduced over every replica in rank order.
int32_t reduced(ReduceOp op, int replicas, uint64_t i) {
  int32_t r = value(0, i);
  for (int g = 1; g < replicas; ++g) r = combine(op, r, value(g, i));
  return op == ReduceOp::kMean ? r / replicas : r;
}

struct TeamShape {
  int processes;
  int local;
  std::vector<int> hosts;  // host of each process; empty: all on one
};

class ComposedCollectiveTest : public ::testing::TestWithParam<TeamShape> {
 protected:
  void SetUp() override {
    Config config;
    if (!GetParam().hosts.empty()) config.collectives.hierarchy = "host";
    world_ = testing::ProcessWorld::create(GetParam().processes, GetParam().local, config);
    ASSERT_NE(world_, nullptr);
    world_->set_hosts(GetParam().hosts);
  }
  int replicas() const { return world_->processes() * world_->local(); }

  // Runs `call` on every process with per-replica vectors of `in_count` and
  // `out_count` elements (inputs filled with value(), outputs with -999).
  void run(uint64_t in_count, uint64_t out_count,
           const std::function<Status(CollectiveOps&, std::vector<Buffer>&,
                                      std::vector<Buffer>&)>& call,
           const std::function<void(int, const std::vector<int32_t>&)>& check) {
    world_->run([&](int p) {
      auto ops = world_->team(p);
      ASSERT_TRUE(ops.ok()) << ops.status();
      const int local = world_->local();
      std::vector<std::vector<int32_t>> in(static_cast<size_t>(local)),
          out(static_cast<size_t>(local));
      std::vector<Buffer> ib, ob;
      const auto devices = (*ops)->team().devices();
      for (int l = 0; l < local; ++l) {
        const int g = p * local + l;
        auto& iv = in[static_cast<size_t>(l)];
        auto& ov = out[static_cast<size_t>(l)];
        for (uint64_t i = 0; i < in_count; ++i) iv.push_back(value(g, i));
        ov.assign(out_count, -999);
        ib.push_back(Buffer{iv.data(), DType::kI32, in_count, devices[static_cast<size_t>(l)]});
        ob.push_back(Buffer{ov.data(), DType::kI32, out_count, devices[static_cast<size_t>(l)]});
      }
      Status s = call(**ops, ib, ob);
      ASSERT_TRUE(s.ok()) << s;
      if (!GetParam().hosts.empty()) {
        // The host levels ran: the team knows its hosts and made them.
        CollectiveOps* by_process = local > 1 ? &(*ops)->local_composition()->cross_process()
                                              : ops->get();
        const HostComposedCollective* levels = by_process->host_composition();
        ASSERT_NE(levels, nullptr) << "not composed by host";
        const int hosts = *std::max_element(GetParam().hosts.begin(), GetParam().hosts.end()) + 1;
        EXPECT_EQ((*ops)->team().host_count(), hosts);
        if (levels->inter_host() != nullptr) {
          EXPECT_EQ(levels->inter_host()->team().host_count(), hosts);
          EXPECT_EQ(levels->inter_host()->team().desc().process_count, hosts);
        }
        if (levels->intra_host() != nullptr) {
          EXPECT_EQ(levels->intra_host()->team().host_count(), 1);
        }
      }
      for (int l = 0; l < local; ++l) check(p * local + l, out[static_cast<size_t>(l)]);
    });
  }

  std::unique_ptr<testing::ProcessWorld> world_;
};

TEST_P(ComposedCollectiveTest, AllReduceEveryOperator) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMin, ReduceOp::kMax,
                      ReduceOp::kProd}) {
    SCOPED_TRACE(std::string(reduce_op_name(op)));
    run(kCount, kCount,
        [op](CollectiveOps& c, auto& in, auto& out) { return c.all_reduce(in, out, op); },
        [&](int, const std::vector<int32_t>& out) {
          for (uint64_t i = 0; i < kCount; ++i) ASSERT_EQ(out[i], reduced(op, replicas(), i)) << i;
        });
  }
}

TEST_P(ComposedCollectiveTest, BroadcastFromEveryRoot) {
  for (int root = 0; root < replicas(); ++root) {
    SCOPED_TRACE("root " + std::to_string(root));
    run(kCount, kCount,
        [root](CollectiveOps& c, auto& in, auto& out) { return c.broadcast(in, out, root); },
        [&](int, const std::vector<int32_t>& out) {
          for (uint64_t i = 0; i < kCount; ++i) ASSERT_EQ(out[i], value(root, i)) << i;
        });
  }
}

TEST_P(ComposedCollectiveTest, AllGatherInRankOrder) {
  const uint64_t total = kCount * static_cast<uint64_t>(replicas());
  run(kCount, total, [](CollectiveOps& c, auto& in, auto& out) { return c.all_gather(in, out); },
      [&](int, const std::vector<int32_t>& out) {
        for (uint64_t i = 0; i < total; ++i) {
          ASSERT_EQ(out[i], value(static_cast<int>(i / kCount), i % kCount)) << i;
        }
      });
}

TEST_P(ComposedCollectiveTest, ReduceScatterSumAndMean) {
  const uint64_t total = kCount * static_cast<uint64_t>(replicas());
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean}) {
    run(total, kCount,
        [op](CollectiveOps& c, auto& in, auto& out) { return c.reduce_scatter(in, out, op); },
        [&](int g, const std::vector<int32_t>& out) {
          for (uint64_t i = 0; i < kCount; ++i) {
            ASSERT_EQ(out[i], reduced(op, replicas(), static_cast<uint64_t>(g) * kCount + i));
          }
        });
  }
}

TEST_P(ComposedCollectiveTest, ReduceWritesOnlyTheRoot) {
  for (int root : {0, replicas() - 1}) {
    run(kCount, kCount,
        [root](CollectiveOps& c, auto& in, auto& out) {
          return c.reduce(in, out, ReduceOp::kMean, root);
        },
        [&](int g, const std::vector<int32_t>& out) {
          for (uint64_t i = 0; i < kCount; ++i) {
            ASSERT_EQ(out[i], g == root ? reduced(ReduceOp::kMean, replicas(), i) : -999) << i;
          }
        });
  }
}

TEST_P(ComposedCollectiveTest, InPlaceAllReduceAndBarrier) {
  run(kCount, kCount,
      [](CollectiveOps& c, auto& in, auto& out) {
        for (size_t l = 0; l < in.size(); ++l) std::memcpy(out[l].data, in[l].data, in[l].bytes());
        STRATA_RETURN_IF_ERROR(c.barrier());
        return c.all_reduce(out, out, ReduceOp::kMax);
      },
      [&](int, const std::vector<int32_t>& out) {
        for (uint64_t i = 0; i < kCount; ++i) ASSERT_EQ(out[i], reduced(ReduceOp::kMax, replicas(), i));
      });
}

INSTANTIATE_TEST_SUITE_P(Shapes, ComposedCollectiveTest,
                         ::testing::Values(TeamShape{2, 2, {}}, TeamShape{3, 2, {}},
                                           TeamShape{2, 3, {}}, TeamShape{4, 1, {0, 0, 1, 1}},
                                           TeamShape{4, 1, {0, 1, 0, 1}},
                                           TeamShape{4, 1, {0, 0, 0, 1}},
                                           TeamShape{5, 1, {0, 1, 1, 0, 2}},
                                           TeamShape{4, 2, {0, 0, 1, 1}}),
                         [](const ::testing::TestParamInfo<TeamShape>& shape) {
                           std::string name = std::to_string(shape.param.processes) + "x" +
                                              std::to_string(shape.param.local);
                           if (!shape.param.hosts.empty()) name += "_hosts";
                           for (int h : shape.param.hosts) name += std::to_string(h);
                           return name;
                         });

}  // namespace
}  // namespace strata
