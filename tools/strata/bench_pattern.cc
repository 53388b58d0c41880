#include "tools/strata/bench_pattern.h"

#include <algorithm>
#include <cstring>

#include "strata/sdk/host_kernels.h"

namespace strata::cli {
namespace {

// Short periods are repeated up to this many elements, so fill and check
// copy or compare a few KiB per call instead of a few bytes.
constexpr uint64_t kMinTableElements = 1024;

void encode(DType dtype, double v, std::byte* dst) {
  auto put = [dst](auto value) { std::memcpy(dst, &value, sizeof value); };
  switch (dtype) {
    case DType::kF32: put(static_cast<float>(v)); break;
    case DType::kF64: put(v); break;
    case DType::kF16: put(sdk::float_to_half(static_cast<float>(v))); break;
    case DType::kBF16: put(sdk::float_to_bfloat16(static_cast<float>(v))); break;
    case DType::kI32: put(static_cast<int32_t>(v)); break;
    case DType::kI64: put(static_cast<int64_t>(v)); break;
    case DType::kU8: put(static_cast<uint8_t>(v)); break;
  }
}

// The largest integer every value up to which the dtype holds exactly.
double exact_limit(DType dtype) {
  switch (dtype) {
    case DType::kU8: return 255;
    case DType::kBF16: return 256;
    case DType::kF16: return 2048;
    case DType::kF32: return 16777216.0;
    default: return 1e15;  // f64, i32, i64: far beyond anything we sum
  }
}

bool is_reducing(CollectiveKind op) {
  return op == CollectiveKind::kAllReduce || op == CollectiveKind::kReduceScatter ||
         op == CollectiveKind::kReduce;
}

}  // namespace

Tiled::Tiled(DType dtype, const std::vector<double>& period)
    : elem_(dtype_size(dtype)), period_(period.size()) {
  const uint64_t reps = (kMinTableElements + period_ - 1) / period_;
  bytes_.resize(period_ * reps * elem_);
  for (uint64_t i = 0; i < period_; ++i) encode(dtype, period[i], bytes_.data() + i * elem_);
  for (uint64_t r = 1; r < reps; ++r) {
    std::memcpy(bytes_.data() + r * period_ * elem_, bytes_.data(), period_ * elem_);
  }
  period_ *= reps;
}

void Tiled::fill(uint64_t first, uint64_t count, std::byte* dst) const {
  uint64_t phase = first % period_;
  while (count > 0) {
    const uint64_t n = std::min(count, period_ - phase);
    std::memcpy(dst, bytes_.data() + phase * elem_, n * elem_);
    dst += n * elem_;
    count -= n;
    phase = 0;
  }
}

uint64_t Tiled::mismatches(uint64_t first, uint64_t count, const std::byte* got) const {
  uint64_t wrong = 0;
  uint64_t phase = first % period_;
  while (count > 0) {
    const uint64_t n = std::min(count, period_ - phase);
    const std::byte* want = bytes_.data() + phase * elem_;
    if (std::memcmp(got, want, n * elem_) != 0) {
      for (uint64_t i = 0; i < n; ++i) {
        wrong += std::memcmp(got + i * elem_, want + i * elem_, elem_) != 0 ? 1 : 0;
      }
    }
    got += n * elem_;
    count -= n;
    phase = 0;
  }
  return wrong;
}

bool Tiled::contains_byte(std::byte b) const {
  return std::find(bytes_.begin(), bytes_.end(), b) != bytes_.end();
}

StatusOr<Pattern> Pattern::make(CollectiveKind op, DType dtype, ReduceOp redop, int replicas) {
  const auto n = static_cast<uint64_t>(replicas);
  const auto fits = static_cast<uint64_t>(exact_limit(dtype)) / n;  // per-replica headroom
  const bool reducing = is_reducing(op);
  uint64_t period = 97;
  // Distinct per replica and per position, so a misplaced slice is caught.
  std::function<double(uint64_t, uint64_t)> value = [](uint64_t r, uint64_t k) {
    return static_cast<double>((13 * k + 29 * r) % 97);
  };
  if (reducing && redop == ReduceOp::kSum) {
    const uint64_t m = std::min<uint64_t>(16, fits);
    if (m == 0) {
      return FailedPreconditionError("sums of " + std::to_string(n) + " replicas overflow " +
                                     std::string(dtype_name(dtype)));
    }
    period = 17;
    value = [m](uint64_t r, uint64_t k) {
      return static_cast<double>((7 * k + 3 * r + 1) % 17 % (m + 1));
    };
  } else if (reducing && redop == ReduceOp::kMean) {
    // Every replica sends b(k); one of them adds n, so the mean is b(k) + 1.
    if (fits < 1) {
      return FailedPreconditionError("means of " + std::to_string(n) + " replicas overflow " +
                                     std::string(dtype_name(dtype)));
    }
    const uint64_t m = std::min<uint64_t>(16, fits - 1);
    period = 17 * n;
    value = [m, n](uint64_t r, uint64_t k) {
      const uint64_t base = (7 * k + 1) % 17 % (m + 1);
      return static_cast<double>(base + ((k + r) % n == 0 ? n : 0));
    };
  } else if (reducing && redop == ReduceOp::kProd) {
    // At most one factor 2 and one factor 3 per element: products stay <= 6.
    period = n + 1;
    value = [n](uint64_t r, uint64_t k) {
      return 1.0 + (r == k % (n + 1) ? 1 : 0) + (r == (k + 1) % (n + 1) ? 2 : 0);
    };
  }

  Pattern p;
  std::vector<std::vector<double>> inputs(n, std::vector<double>(period));
  for (uint64_t r = 0; r < n; ++r) {
    for (uint64_t k = 0; k < period; ++k) inputs[r][k] = value(r, k);
    p.inputs_.emplace_back(dtype, inputs[r]);
  }
  if (reducing) {
    std::vector<double> reduced(period);
    for (uint64_t k = 0; k < period; ++k) {
      double acc = inputs[0][k];
      for (uint64_t r = 1; r < n; ++r) {
        const double v = inputs[r][k];
        switch (redop) {
          case ReduceOp::kSum:
          case ReduceOp::kMean: acc += v; break;
          case ReduceOp::kProd: acc *= v; break;
          case ReduceOp::kMin: acc = std::min(acc, v); break;
          case ReduceOp::kMax: acc = std::max(acc, v); break;
        }
      }
      reduced[k] = redop == ReduceOp::kMean ? acc / static_cast<double>(n) : acc;
    }
    p.reduced_ = Tiled(dtype, reduced);
  }
  // Multi-byte 0xA5.. patterns are negative in every dtype, so never a
  // correct result; a u8 needs a value that no correct output holds.
  if (dtype == DType::kU8) {
    for (int b = 255; b >= 0; --b) {
      const auto candidate = static_cast<std::byte>(b);
      bool used = reducing && p.reduced_.contains_byte(candidate);
      for (const Tiled& t : p.inputs_) used = used || t.contains_byte(candidate);
      if (!used) {
        p.sentinel_ = candidate;
        break;
      }
    }
  }
  return p;
}

}  // namespace strata::cli
