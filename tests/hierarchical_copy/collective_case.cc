#include "collective_case.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace strata::testing {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t kSentinel = 0xDEADBEEF;  // never an input value, in f32 or i32
constexpr uint64_t kGuard = 16;             // sentinel words around every region

uint32_t encode(DType d, int64_t v) {
  if (d == DType::kF32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  return static_cast<uint32_t>(static_cast<int32_t>(v));
}

std::string show(DType d, uint32_t bits) {
  std::ostringstream os;
  if (bits == kSentinel) return "sentinel (never written)";
  if (d == DType::kF32) {
    os << std::bit_cast<float>(bits);
  } else {
    os << std::bit_cast<int32_t>(bits);
  }
  return os.str();
}

// The reference reduction of elements [base, base + count) over every
// replica's input values. Sums and maxima are exact in int32; MEAN divides the
// exact sum once, as the device does after summing.
std::vector<uint32_t> reduced(const Case& c, const std::vector<std::vector<int8_t>>& values,
                              uint64_t base, uint64_t count) {
  const int replicas = static_cast<int>(values.size());
  std::vector<int32_t> sum(count, 0);
  std::vector<int32_t> max(count, std::numeric_limits<int32_t>::min());
  for (const std::vector<int8_t>& v : values) {
    const int8_t* x = v.data() + base;
    for (uint64_t i = 0; i < count; ++i) {
      sum[i] += x[i];
      max[i] = std::max<int32_t>(max[i], x[i]);
    }
  }
  std::vector<uint32_t> out(count);
  for (uint64_t i = 0; i < count; ++i) {
    switch (c.op) {
      case ReduceOp::kMax: out[i] = encode(c.dtype, max[i]); break;
      case ReduceOp::kMean:
        out[i] = c.dtype == DType::kF32
                     ? std::bit_cast<uint32_t>(static_cast<float>(sum[i]) /
                                               static_cast<float>(replicas))
                     : encode(c.dtype, sum[i] / replicas);  // truncates toward zero
        break;
      default: out[i] = encode(c.dtype, sum[i]); break;
    }
  }
  return out;
}

// One replica's memory, in 4-byte words: guards, input and output.
struct Layout {
  uint64_t in_off = 0, in_count = 0, out_off = 0, out_count = 0, total = 0;

  Layout(const Case& c, int replicas, int r) {
    const uint64_t whole = c.count * static_cast<uint64_t>(replicas);
    in_count = c.kind == CollectiveKind::kReduceScatter ? whole : c.count;
    out_count = c.kind == CollectiveKind::kAllGather ? whole : c.count;
    const uint64_t slot = c.count * static_cast<uint64_t>(r);
    if (c.in_place) {
      in_off = out_off = kGuard;
      if (c.kind == CollectiveKind::kAllGather) in_off += slot;
      if (c.kind == CollectiveKind::kReduceScatter) out_off += slot;
      total = kGuard + std::max(in_count, out_count) + kGuard;
    } else {
      in_off = kGuard;
      out_off = in_off + in_count + kGuard;
      total = out_off + out_count + kGuard;
    }
  }

  std::string place(uint64_t w) const {
    if (w >= out_off && w < out_off + out_count) {
      return "output[" + std::to_string(w - out_off) + "]";
    }
    if (w >= in_off && w < in_off + in_count) return "input[" + std::to_string(w - in_off) + "]";
    return "guard word " + std::to_string(w);
  }
};

// Replica r's whole output, or nullopt where the op must not write it.
std::optional<std::vector<uint32_t>> expected_output(
    const Case& c, const std::vector<std::vector<int8_t>>& values, int r) {
  switch (c.kind) {
    case CollectiveKind::kAllReduce: return reduced(c, values, 0, c.count);
    case CollectiveKind::kBroadcast: {
      std::vector<uint32_t> out;
      for (int8_t v : values[static_cast<size_t>(c.root)]) out.push_back(encode(c.dtype, v));
      return out;
    }
    case CollectiveKind::kAllGather: {
      std::vector<uint32_t> out;
      for (const std::vector<int8_t>& input : values) {
        for (int8_t v : input) out.push_back(encode(c.dtype, v));
      }
      return out;
    }
    case CollectiveKind::kReduceScatter:
      return reduced(c, values, static_cast<uint64_t>(r) * c.count, c.count);
    case CollectiveKind::kReduce:
      if (r != c.root) return std::nullopt;
      return reduced(c, values, 0, c.count);
    default: return std::nullopt;
  }
}

Status call(CollectiveOps& ops, const Case& c, std::span<const Buffer> in,
            std::span<const Buffer> out, const CallOptions& options) {
  switch (c.kind) {
    case CollectiveKind::kAllReduce: return ops.all_reduce(in, out, c.op, options);
    case CollectiveKind::kBroadcast: return ops.broadcast(in, out, c.root, options);
    case CollectiveKind::kAllGather: return ops.all_gather(in, out, options);
    case CollectiveKind::kReduceScatter: return ops.reduce_scatter(in, out, c.op, options);
    case CollectiveKind::kReduce: return ops.reduce(in, out, c.op, c.root, options);
    default: return InvalidArgumentError("run_case does not run " +
                                         std::string(collective_name(c.kind)));
  }
}

}  // namespace

int64_t input_value(int replica, uint64_t i, int seed) {
  // A hash, not a pattern: data from a wrong offset or replica never matches
  // by period.
  uint64_t mix = i * 0x9E3779B97F4A7C15u + static_cast<uint64_t>(replica) * 0xBF58476D1CE4E5B9u +
                 static_cast<uint64_t>(seed) * 0x94D049BB133111EBu;
  mix ^= mix >> 29;
  mix *= 0xBF58476D1CE4E5B9u;
  mix ^= mix >> 32;
  return static_cast<int64_t>(mix % 61) - 30;
}

std::string Case::describe() const {
  std::ostringstream os;
  os << collective_name(kind) << " " << dtype_name(dtype) << " " << reduce_op_name(op)
     << " count=" << count << (in_place ? " in-place" : " out-of-place") << " root=" << root
     << " seed=" << seed;
  return os.str();
}

::testing::AssertionResult run_case(CollectiveOps& ops, const sdk::DeviceTable& table,
                                    const Case& c, const std::string& algorithm) {
  const int n = ops.team().local_count();
  const int replicas = ops.replica_count();
  std::vector<Layout> layouts;
  std::vector<sdk::DeviceBuffer> memory;
  std::vector<std::vector<uint32_t>> expected;
  std::vector<Buffer> in;
  std::vector<Buffer> out;
  // Each replica's input values, small enough for int8.
  std::vector<std::vector<int8_t>> values;
  for (int r = 0; r < n; ++r) {
    const Layout& l = layouts.emplace_back(c, replicas, r);
    std::vector<int8_t>& v = values.emplace_back(l.in_count);
    for (uint64_t j = 0; j < l.in_count; ++j) {
      v[j] = static_cast<int8_t>(input_value(r, j, c.seed));
    }
  }
  for (int r = 0; r < n; ++r) {
    const Layout& l = layouts[static_cast<size_t>(r)];
    const strata_device_t device = ops.team().devices()[static_cast<size_t>(r)];
    auto* words = static_cast<uint32_t*>(
        memory.emplace_back(table, device.index, l.total * sizeof(uint32_t)).data());
    std::fill(words, words + l.total, kSentinel);
    const std::vector<int8_t>& v = values[static_cast<size_t>(r)];
    for (uint64_t j = 0; j < l.in_count; ++j) words[l.in_off + j] = encode(c.dtype, v[j]);
    std::vector<uint32_t>& want = expected.emplace_back(words, words + l.total);
    if (auto result = expected_output(c, values, r)) {
      std::copy(result->begin(), result->end(), want.begin() + static_cast<ptrdiff_t>(l.out_off));
    }
    in.push_back(Buffer{words + l.in_off, c.dtype, l.in_count, device});
    out.push_back(Buffer{words + l.out_off, c.dtype, l.out_count, device});
  }

  const Status s = call(ops, c, in, out, CallOptions{.timeout = 20s, .algorithm = algorithm});
  if (!s.ok()) {
    // A failed call may leave work queued that still uses these buffers.
    for (const strata_device_t& d : ops.team().devices()) {
      try {
        table.synchronize(d.index, 5s);
      } catch (const std::exception&) {
        // The failure being reported is the interesting one.
      }
    }
    return ::testing::AssertionFailure() << c.describe() << ": " << s;
  }

  for (int r = 0; r < n; ++r) {
    const Layout& l = layouts[static_cast<size_t>(r)];
    const auto* got = static_cast<const uint32_t*>(memory[static_cast<size_t>(r)].data());
    const std::vector<uint32_t>& want = expected[static_cast<size_t>(r)];
    uint64_t wrong = 0;
    uint64_t first = 0;
    for (uint64_t w = 0; w < l.total; ++w) {
      if (got[w] != want[w] && wrong++ == 0) first = w;
    }
    if (wrong != 0) {
      return ::testing::AssertionFailure()
             << c.describe() << ": replica " << r << " has " << wrong << " wrong words; first "
             << l.place(first) << " is " << show(c.dtype, got[first]) << ", expected "
             << show(c.dtype, want[first]);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace strata::testing
