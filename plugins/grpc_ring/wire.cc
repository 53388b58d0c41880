#include "wire.h"

#include <algorithm>
#include <cstring>

#include "strata/sdk/error.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {
namespace {

// Fixed little-endian layout, so hosts of either byte order interoperate.
template <class T>
void put(std::byte*& p, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    *p++ = static_cast<std::byte>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  }
}

template <class T>
T get(const std::byte*& p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(*p++) << (8 * i);
  return static_cast<T>(v);
}

// Payload pieces the reduction kernels may read in place: aligned for the
// element type. Others go through this bounce buffer, per thread.
constexpr size_t kBounceBytes = 64 * 1024;

}  // namespace

std::string Header::describe() const {
  return "team " + std::to_string(team_id) + " call " + std::to_string(sequence) + " " +
         sdk::op_name(op) + " step " + std::to_string(step) + " chunk " +
         std::to_string(chunk) + " dtype " + sdk::dtype_name(dtype) + " from rank " +
         std::to_string(sender) + ", " + std::to_string(bytes) + " bytes";
}

void write_header(const Header& h, std::byte* out) {
  std::byte* p = out;
  put(p, h.magic);
  put(p, h.version);
  put(p, h.op);
  put(p, h.team_id);
  put(p, h.sequence);
  put(p, h.step);
  put(p, h.chunk);
  put(p, static_cast<uint32_t>(h.dtype));
  put(p, h.sender);
  put(p, h.bytes);
}

Header read_header(const std::byte* in) {
  const std::byte* p = in;
  Header h;
  h.magic = get<uint32_t>(p);
  h.version = get<uint16_t>(p);
  h.op = get<uint16_t>(p);
  h.team_id = get<uint64_t>(p);
  h.sequence = get<uint64_t>(p);
  h.step = get<uint32_t>(p);
  h.chunk = get<uint32_t>(p);
  h.dtype = static_cast<int32_t>(get<uint32_t>(p));
  h.sender = get<uint32_t>(p);
  h.bytes = get<uint64_t>(p);
  return h;
}

void check_header(const Header& got, const Header& want, const std::string& from) {
  if (got.magic != kMagic || got.version != kWireVersion) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " is not a grpc_ring v1 message (magic " +
                                           std::to_string(got.magic) + ", version " +
                                           std::to_string(got.version) + ")");
  }
  if (got != want) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " is not the one due (malformed, replayed, or "
                                           "of another call): got " + got.describe() +
                                           "; expected " + want.describe());
  }
}

grpc::ByteBuffer encode(const Header& h, const void* payload) {
  std::byte head[kHeaderBytes] = {};
  write_header(h, head);
  grpc::Slice slices[2] = {grpc::Slice(head, kHeaderBytes),
                           grpc::Slice(payload, static_cast<size_t>(h.bytes))};
  return grpc::ByteBuffer(slices, h.bytes == 0 ? 1 : 2);
}

Message::Message(grpc::ByteBuffer& buffer) {
  if (!buffer.Dump(&slices_).ok()) slices_.clear();
  for (const grpc::Slice& s : slices_) size_ += s.size();
}

std::optional<Header> Message::header() const {
  if (size_ < kHeaderBytes) return std::nullopt;
  std::byte head[kHeaderBytes];
  size_t have = 0;
  for (const grpc::Slice& s : slices_) {
    const size_t take = std::min(s.size(), kHeaderBytes - have);
    std::memcpy(head + have, s.begin(), take);
    have += take;
    if (have == kHeaderBytes) break;
  }
  return read_header(head);
}

template <class Fn>
void Message::for_each_payload_piece(Fn&& fn) const {
  size_t skip = kHeaderBytes;
  for (const grpc::Slice& s : slices_) {
    const auto* p = reinterpret_cast<const std::byte*>(s.begin());
    size_t n = s.size();
    const size_t drop = std::min(skip, n);
    skip -= drop;
    if (n > drop) fn(p + drop, n - drop);
  }
}

void Message::copy_payload(void* dst) const {
  auto* out = static_cast<std::byte*>(dst);
  for_each_payload_piece([&](const std::byte* p, size_t n) {
    sdk::copy_host(out, p, n);
    out += n;
  });
}

void Message::reduce_payload(strata_dtype_t dtype, strata_redop_t op, void* dst,
                             const void* local, uint64_t count, uint32_t divisor) const {
  const size_t elem = sdk::dtype_size(dtype);
  auto* out = static_cast<std::byte*>(dst);
  const auto* mine = static_cast<const std::byte*>(local);
  thread_local std::vector<std::byte> bounce(kBounceBytes);
  uint64_t done = 0;  // elements reduced so far
  auto reduce = [&](const std::byte* theirs, uint64_t n) {
    const void* srcs[2] = {mine + done * elem, theirs};
    if (!sdk::reduce_host(dtype, op, out + done * elem, srcs, 2, n, divisor)) {
      throw sdk::Error(STRATA_INTERNAL, std::string("no host kernel for ") +
                                            sdk::dtype_name(dtype) + " " + sdk::redop_name(op));
    }
    done += n;
  };
  std::byte carry[16];
  size_t have = 0;  // bytes of an element cut by a slice boundary
  for_each_payload_piece([&](const std::byte* p, size_t n) {
    if (have > 0) {
      const size_t take = std::min(elem - have, n);
      std::memcpy(carry + have, p, take);
      have += take;
      p += take;
      n -= take;
      if (have < elem) return;
      reduce(carry, 1);
      have = 0;
    }
    while (n >= elem) {
      uint64_t whole = n / elem;
      if (reinterpret_cast<uintptr_t>(p) % elem == 0) {
        reduce(p, whole);
      } else {
        whole = std::min<uint64_t>(whole, kBounceBytes / elem);
        sdk::copy_host(bounce.data(), p, whole * elem);
        reduce(bounce.data(), whole);
      }
      p += whole * elem;
      n -= whole * elem;
    }
    std::memcpy(carry, p, n);
    have = n;
  });
  if (done != count || have != 0) {
    throw sdk::Error(STRATA_DATA_LOSS, "payload holds " + std::to_string(done) +
                                           " elements, expected " + std::to_string(count));
  }
}

}  // namespace strata::grpc_ring
