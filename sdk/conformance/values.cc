#include "sdk/conformance/values.h"

#include <algorithm>
#include <cmath>

namespace strata::conformance {
namespace {

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

// Random numbers, 16 bits at a time: the suite draws billions of small
// values, and one 64-bit word serves four of them.
class RandomBits {
 public:
  explicit RandomBits(uint64_t seed) : state_(seed) {}
  uint64_t next64() { return splitmix(state_); }
  uint64_t next16() {
    if (left_ == 0) {
      word_ = splitmix(state_);
      left_ = 4;
    }
    const uint64_t v = word_ & 0xFFFF;
    word_ >>= 16;
    --left_;
    return v;
  }
  // Uniform in [lo, hi] for hi - lo < 65536 (a multiply, not a division).
  int64_t uniform(int64_t lo, int64_t hi) {
    const auto span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>((next16() * span) >> 16);
  }

 private:
  uint64_t state_;
  uint64_t word_ = 0;
  int left_ = 0;
};

namespace {

// Largest count of `step` units whose every integer multiple is exact.
int64_t exact_units(DType dtype) {
  switch (dtype) {
    case DType::kU8: return 255;
    case DType::kBF16: return 256;
    case DType::kF16: return 2048;
    case DType::kF32: return int64_t{1} << 24;
    default: return int64_t{1} << 40;
  }
}

// Integers wrap to their width, as the ABI's kernels do.
double wrap_integer(DType dtype, int64_t v) {
  switch (dtype) {
    case DType::kI32: return static_cast<double>(static_cast<int32_t>(v));
    case DType::kU8: return static_cast<double>(static_cast<uint8_t>(v));
    default: return static_cast<double>(v);
  }
}

template <class T, class Combine>
T fold(std::span<const double> column, Combine combine) {
  T acc = static_cast<T>(column[0]);
  for (size_t i = 1; i < column.size(); ++i) acc = combine(acc, static_cast<T>(column[i]));
  return acc;
}

template <class T>
T fold_op(ReduceOp op, std::span<const double> column) {
  switch (op) {
    case ReduceOp::kProd: return fold<T>(column, [](T a, T b) { return a * b; });
    case ReduceOp::kMin: return fold<T>(column, [](T a, T b) { return std::min(a, b); });
    case ReduceOp::kMax: return fold<T>(column, [](T a, T b) { return std::max(a, b); });
    case ReduceOp::kSum:
    case ReduceOp::kMean: break;
  }
  return fold<T>(column, [](T a, T b) { return a + b; });
}

}  // namespace

Expected reduce_reference(DType dtype, ReduceOp op, std::span<const double> column) {
  const auto n = static_cast<int64_t>(column.size());
  if (!is_floating(dtype)) {
    int64_t acc = fold_op<int64_t>(op, column);
    if (op == ReduceOp::kMean) acc /= n;  // C++ truncates toward zero, as the ABI says
    return {wrap_integer(dtype, acc), 0.0};
  }
  // Other results are exact in the dtype by construction (InputGenerator).
  const double acc = fold_op<double>(op, column);
  if (op != ReduceOp::kMean) return {acc, 0.0};
  // Exact here too (the generator makes sums divisible by n), but an
  // algorithm may divide each contribution before summing; allow that.
  double magnitude = 0;
  for (const double v : column) magnitude += std::abs(v);
  return {round_to(dtype, acc / static_cast<double>(n)), epsilon(dtype) * magnitude};
}

InputGenerator::InputGenerator(DType dtype, std::optional<ReduceOp> redop, int world,
                               uint64_t seed)
    : dtype_(dtype), redop_(redop), world_(world), seed_(seed) {
  const bool halves = dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kF16;
  step_ = halves ? 0.5 : 1.0;
  const int64_t base = halves ? 32 : 16;  // |value| <= 16
  max_units_ = std::max<int64_t>(1, std::min(base, exact_units(dtype) / world));
}

double InputGenerator::wide_value(RandomBits& bits) const {
  if (!is_floating(dtype_)) {
    const uint64_t word = bits.next64();
    switch (dtype_) {
      case DType::kI32: return static_cast<double>(static_cast<int32_t>(word));
      case DType::kU8: return static_cast<double>(static_cast<uint8_t>(word));
      // Doubles hold integers exactly up to 2^53; stay inside that.
      default: return static_cast<double>(static_cast<int64_t>(word) >> 11);
    }
  }
  const bool narrow = dtype_ == DType::kF16 || dtype_ == DType::kBF16;
  const auto exponent = static_cast<int>(narrow ? bits.uniform(-14, 14) : bits.uniform(-40, 40));
  const uint64_t word = bits.next64();
  const double mantissa = 1.0 + static_cast<double>(word >> 12) * std::ldexp(1.0, -52);
  const double sign = (word & 1) != 0 ? -1.0 : 1.0;
  return round_to(dtype_, sign * std::ldexp(mantissa, exponent));
}

// 1, 2, -1 (and 0.5 for floats, 0 rarely); at most 7 doublings or halvings
// per element so every product is a power of two that u8 and bf16 hold.
double InputGenerator::prod_factor(RandomBits& bits, int& doublings) const {
  const uint64_t pick = bits.next16() & 63;
  const bool is_unsigned = dtype_ == DType::kU8;
  if (pick == 0) return 0.0;
  if (pick < 24 || doublings >= 7) return (pick % 3 == 0 && !is_unsigned) ? -1.0 : 1.0;
  ++doublings;
  if (pick < 32 && is_floating(dtype_)) return 0.5;
  return 2.0;
}

void InputGenerator::column(uint64_t element, std::span<double> out) const {
  RandomBits bits(mix_seed(seed_, element));
  if (!redop_) {
    for (double& v : out) v = wide_value(bits);
    return;
  }
  if (*redop_ == ReduceOp::kProd) {
    int doublings = 0;
    for (double& v : out) v = prod_factor(bits, doublings);
    return;
  }
  const int64_t lo = dtype_ == DType::kU8 ? 0 : -max_units_;
  int64_t units_sum = 0;
  for (double& v : out) {
    const int64_t units = bits.uniform(lo, max_units_);
    units_sum += units;
    v = static_cast<double>(units) * step_;
  }
  if (*redop_ != ReduceOp::kMean || !is_floating(dtype_) || out.empty()) return;
  // Move the last contribution within range so the sum divides by n.
  const auto last = static_cast<int64_t>(out.back() / step_);
  const int64_t rest = units_sum - last;
  for (int64_t units = lo; units <= max_units_; ++units) {
    if ((rest + units) % world_ == 0) {
      out.back() = static_cast<double>(units) * step_;
      return;
    }
  }
}

uint64_t mix_seed(uint64_t a, uint64_t b) {
  uint64_t state = a ^ (b * 0xD6E8FEB86659FD93ull);
  return splitmix(state);
}

uint64_t hash_name(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace strata::conformance
