#include "sdk/conformance/dtype_codec.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "strata/sdk/host_kernels.h"

namespace strata::conformance {
namespace {

template <class T, class Convert>
void encode_as(std::span<const double> values, std::byte* dst, Convert convert) {
  for (size_t i = 0; i < values.size(); ++i) {
    const T v = convert(values[i]);
    std::memcpy(dst + i * sizeof(T), &v, sizeof(T));
  }
}

template <class T, class Convert>
void decode_as(const std::byte* src, std::span<double> out, Convert convert) {
  for (size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, src + i * sizeof(T), sizeof(T));
    out[i] = convert(v);
  }
}

}  // namespace

bool is_floating(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kF16 ||
         dtype == DType::kBF16;
}

double epsilon(DType dtype) {
  switch (dtype) {
    case DType::kF16: return std::ldexp(1.0, -10);
    case DType::kBF16: return std::ldexp(1.0, -7);
    case DType::kF32: return std::ldexp(1.0, -23);
    case DType::kF64: return std::ldexp(1.0, -52);
    default: return 1.0;
  }
}

void encode(DType dtype, std::span<const double> values, std::byte* dst) {
  auto to_int = [](double v) { return static_cast<int64_t>(v); };
  switch (dtype) {
    case DType::kF32:
      return encode_as<float>(values, dst, [](double v) { return static_cast<float>(v); });
    case DType::kF64: return encode_as<double>(values, dst, [](double v) { return v; });
    case DType::kF16:
      return encode_as<uint16_t>(values, dst, [](double v) {
        return sdk::float_to_half(static_cast<float>(v));
      });
    case DType::kBF16:
      return encode_as<uint16_t>(values, dst, [](double v) {
        return sdk::float_to_bfloat16(static_cast<float>(v));
      });
    case DType::kI32:
      return encode_as<int32_t>(values, dst, [&](double v) {
        return static_cast<int32_t>(to_int(v));
      });
    case DType::kI64: return encode_as<int64_t>(values, dst, to_int);
    case DType::kU8:
      return encode_as<uint8_t>(values, dst, [&](double v) {
        return static_cast<uint8_t>(to_int(v));
      });
  }
}

void decode(DType dtype, const std::byte* src, std::span<double> out) {
  auto widen = [](auto v) { return static_cast<double>(v); };
  switch (dtype) {
    case DType::kF32: return decode_as<float>(src, out, widen);
    case DType::kF64: return decode_as<double>(src, out, widen);
    case DType::kF16:
      return decode_as<uint16_t>(src, out, [](uint16_t v) {
        return static_cast<double>(sdk::half_to_float(v));
      });
    case DType::kBF16:
      return decode_as<uint16_t>(src, out, [](uint16_t v) {
        return static_cast<double>(sdk::bfloat16_to_float(v));
      });
    case DType::kI32: return decode_as<int32_t>(src, out, widen);
    case DType::kI64: return decode_as<int64_t>(src, out, widen);
    case DType::kU8: return decode_as<uint8_t>(src, out, widen);
  }
}

double load_value(DType dtype, const std::byte* base, uint64_t index) {
  double v = 0;
  decode(dtype, base + index * dtype_size(dtype), std::span<double>(&v, 1));
  return v;
}

void store_value(DType dtype, std::byte* base, uint64_t index, double value) {
  encode(dtype, std::span<const double>(&value, 1), base + index * dtype_size(dtype));
}

double round_to(DType dtype, double value) {
  std::byte cell[8] = {};
  store_value(dtype, cell, 0, value);
  return load_value(dtype, cell, 0);
}

std::string format_value(double value) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

}  // namespace strata::conformance
