// One process of tests/netns/host_levels_test.sh: joins the job TF_CONFIG
// describes, runs every op (in place and out of place, every root) on one
// i32 buffer, checks each result against the flat reference, and prints how
// all_reduce runs: flat or composed by host, with each level's algorithm.
//   host_levels_worker CONFIG
// Exits 0 when every result matched, 1 (naming the op) otherwise.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/cluster/job_team.h"
#include "core/runtime/runtime.h"

namespace {

using namespace strata;

constexpr uint64_t kCount = 1000;

int32_t value(int rank, uint64_t i) {
  return static_cast<int32_t>((rank + 1) * 7 + static_cast<int>(i % 13) - 6);
}

int32_t sum_over(int processes, uint64_t i) {
  int32_t s = 0;
  for (int r = 0; r < processes; ++r) s += value(r, i);
  return s;
}

struct Worker {
  CollectiveOps& ops;
  int rank;
  int processes;
  strata_device_t device;
  int failures = 0;

  // Fills `in` with this rank's values and `out` with -1, runs `call`, and
  // compares `out` with expected(i) (an empty function: out not checked).
  void check(const std::string& what, uint64_t in_count, uint64_t out_count, bool in_place,
             const std::function<Status(std::span<const Buffer>, std::span<const Buffer>)>& call,
             const std::function<int32_t(uint64_t)>& expected) {
    std::vector<int32_t> in(std::max(in_count, out_count)), out(out_count, -1);
    for (uint64_t i = 0; i < in_count; ++i) in[i] = value(rank, i);
    const Buffer ib[] = {{in.data(), DType::kI32, in_count, device}};
    const Buffer ob[] = {{in_place ? in.data() : out.data(), DType::kI32, out_count, device}};
    Status s = call(ib, ob);
    const std::vector<int32_t>& result = in_place ? in : out;
    std::string wrong;
    if (!s.ok()) wrong = s.to_string();
    for (uint64_t i = 0; s.ok() && expected && i < out_count && wrong.empty(); ++i) {
      if (result[i] != expected(i)) {
        wrong = "element " + std::to_string(i) + " is " + std::to_string(result[i]) +
                ", expected " + std::to_string(expected(i));
      }
    }
    std::printf("%s %s%s%s\n", wrong.empty() ? "ok" : "FAILED", what.c_str(),
                in_place ? " (in place)" : "", wrong.empty() ? "" : (": " + wrong).c_str());
    failures += wrong.empty() ? 0 : 1;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host_levels_worker CONFIG\n");
    return 2;
  }
  auto runtime = Runtime::from_config_file(argv[1]);
  if (!runtime.ok()) {
    std::fprintf(stderr, "%s\n", runtime.status().to_string().c_str());
    return 1;
  }
  auto job = JobTeam::join(*runtime, {}, {}, "host_levels_worker");
  if (!job.ok()) {
    std::fprintf(stderr, "%s\n", job.status().to_string().c_str());
    return 1;
  }
  CollectiveOps& ops = (*job)->ops();
  const int n = ops.replica_count();
  Worker w{ops, (*job)->rank(), n, ops.team().devices()[0]};
  std::printf("rank %d of %d on host %d of %d\n", w.rank, n, ops.team().host_of(w.rank),
              ops.team().host_count());

  for (bool in_place : {false, true}) {
    w.check("all_reduce sum", kCount, kCount, in_place,
            [&](auto in, auto out) { return ops.all_reduce(in, out, ReduceOp::kSum); },
            [&](uint64_t i) { return sum_over(n, i); });
    w.check("all_reduce mean", kCount, kCount, in_place,
            [&](auto in, auto out) { return ops.all_reduce(in, out, ReduceOp::kMean); },
            [&](uint64_t i) { return sum_over(n, i) / n; });
    w.check("all_reduce max", kCount, kCount, in_place,
            [&](auto in, auto out) { return ops.all_reduce(in, out, ReduceOp::kMax); },
            [&](uint64_t i) { return value(n - 1, i); });
    for (int root = 0; root < n; ++root) {
      w.check("broadcast from " + std::to_string(root), kCount, kCount, in_place,
              [&](auto in, auto out) { return ops.broadcast(in, out, root); },
              [&](uint64_t i) { return value(root, i); });
      w.check("reduce to " + std::to_string(root), kCount, kCount, in_place,
              [&](auto in, auto out) { return ops.reduce(in, out, ReduceOp::kSum, root); },
              [&](uint64_t i) -> int32_t {
                if (w.rank == root) return sum_over(n, i);
                return in_place ? value(w.rank, i) : -1;  // untouched
              });
    }
  }
  const uint64_t total = kCount * static_cast<uint64_t>(n);
  w.check("all_gather", kCount, total, false,
          [&](auto in, auto out) { return ops.all_gather(in, out); },
          [&](uint64_t i) { return value(static_cast<int>(i / kCount), i % kCount); });
  w.check("reduce_scatter sum", total, kCount, false,
          [&](auto in, auto out) { return ops.reduce_scatter(in, out, ReduceOp::kSum); },
          [&](uint64_t i) {
            return sum_over(n, static_cast<uint64_t>(w.rank) * kCount + i);
          });
  w.check("barrier", 0, 0, false, [&](auto, auto) { return ops.barrier(); }, {});

  auto how = ops.explain_hierarchy(CollectiveKind::kAllReduce, DType::kI32, kCount);
  if (!how.ok()) {
    std::printf("FAILED explain: %s\n", how.status().to_string().c_str());
    return 1;
  }
  std::printf("all_reduce: %s: %s\n", how->compose ? "composed by host" : "flat",
              how->reason.c_str());
  for (const HostStep& s : how->steps) {
    std::printf("  %s %s: %s\n", host_level_name(s.level), collective_name(s.op).data(),
                s.selection.chosen ? s.selection.chosen->id.c_str() : "none");
  }
  Status last = ops.barrier();  // nobody leaves while a peer still needs it
  if (!last.ok()) {
    std::printf("FAILED final barrier: %s\n", last.to_string().c_str());
    return 1;
  }
  return w.failures == 0 ? 0 : 1;
}
