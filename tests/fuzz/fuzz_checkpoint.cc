// Fuzz target: the checkpoint reader (core/checkpoint/checkpoint_file.h).
// The input is written as a checkpoint file and read back twice: as it is,
// which mostly exercises the header, length and CRC checks, and with its
// length field and CRC trailer made to match, so the fuzzer reaches the
// record decoder behind the checksum. Properties besides "no crash":
// read_checkpoint and verify_checkpoint agree on the raw file; a refusal is
// DATA_LOSS naming the file; and what is accepted writes back (through
// write_checkpoint) to a file that reads as the same checkpoint.
#include <zlib.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/checkpoint/checkpoint_file.h"
#include "tests/fuzz/fuzz_check.h"

namespace fs = std::filesystem;

namespace {

// A private directory, in memory where the machine has /dev/shm: each
// input costs a write and a read, not a disk sync.
const fs::path& work_dir() {
  // Never destroyed: the atexit handler below runs after static objects
  // made later than its registration are gone.
  static const fs::path* const dir = [] {
    std::error_code ec;
    const fs::path base =
        fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string pattern = (base / "strata-fuzz-ckpt-XXXXXX").string();
    STRATA_FUZZ_CHECK(::mkdtemp(pattern.data()) != nullptr, pattern);
    return new fs::path(pattern);
  }();
  static const bool cleanup = (std::atexit([] {
                                 std::error_code e;
                                 fs::remove_all(*dir, e);
                               }),
                               true);
  (void)cleanup;
  return *dir;
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  STRATA_FUZZ_CHECK(out.good(), "cannot write " + path.string());
}

void check_refusal(const strata::Status& s, const fs::path& path) {
  STRATA_FUZZ_CHECK(s.code() == strata::Code::kDataLoss, s.to_string());
  STRATA_FUZZ_CHECK(s.message().find(path.string()) != std::string::npos, s.to_string());
}

bool same_bits(const strata::Tensor& a, const strata::Tensor& b) {
  if (a.shape() != b.shape() || a.values().size() != b.values().size()) return false;
  for (size_t i = 0; i < a.values().size(); ++i) {
    if (std::bit_cast<uint32_t>(a.values()[i]) != std::bit_cast<uint32_t>(b.values()[i])) {
      return false;
    }
  }
  return true;
}

void check_round_trip(const strata::Checkpoint& ckpt) {
  const fs::path again = work_dir() / "again.strata";
  const strata::Status written = strata::write_checkpoint(again, ckpt);
  STRATA_FUZZ_CHECK(written.ok(), "a checkpoint that was read cannot be written: " +
                                      written.to_string());
  strata::StatusOr<strata::Checkpoint> back = strata::read_checkpoint(again);
  STRATA_FUZZ_CHECK(back.ok(), back.status().to_string());
  STRATA_FUZZ_CHECK(back->step == ckpt.step, "the step changed");
  STRATA_FUZZ_CHECK(back->metadata == ckpt.metadata, "the metadata changed");
  STRATA_FUZZ_CHECK(back->tensors.size() == ckpt.tensors.size(), "the tensor count changed");
  for (const auto& [name, tensor] : ckpt.tensors) {
    auto it = back->tensors.find(name);
    STRATA_FUZZ_CHECK(it != back->tensors.end(), "tensor '" + name + "' was lost");
    STRATA_FUZZ_CHECK(same_bits(it->second, tensor), "tensor '" + name + "' changed");
  }
}

// The input with its header's length and its CRC trailer made true.
std::string with_valid_length_and_crc(std::string bytes) {
  constexpr size_t kLengthAt = 16;
  constexpr size_t kMinimum = 40 + 4;
  if (bytes.size() < kMinimum) return bytes;
  const uint64_t length = bytes.size();
  for (size_t i = 0; i < 8; ++i) bytes[kLengthAt + i] = static_cast<char>((length >> (8 * i)) & 0xff);
  const size_t body = bytes.size() - 4;
  const auto crc = static_cast<uint32_t>(
      crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(bytes.data()), body));
  for (size_t i = 0; i < 4; ++i) bytes[body + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string raw(reinterpret_cast<const char*>(data), size);
  const fs::path path = work_dir() / "ckpt.strata";

  write_file(path, raw);
  strata::StatusOr<strata::Checkpoint> read = strata::read_checkpoint(path);
  const strata::Status verified = strata::verify_checkpoint(path);
  // verify_checkpoint runs the header, length and CRC checks only: what it
  // refuses, read_checkpoint must refuse too.
  if (!verified.ok()) {
    check_refusal(verified, path);
    STRATA_FUZZ_CHECK(!read.ok(), "read_checkpoint took a file verify_checkpoint refused: " +
                                      verified.to_string());
  }
  if (!read.ok()) {
    check_refusal(read.status(), path);
  } else {
    check_round_trip(*read);
  }

  const std::string fixed = with_valid_length_and_crc(raw);
  if (fixed != raw) {
    write_file(path, fixed);
    strata::StatusOr<strata::Checkpoint> decoded = strata::read_checkpoint(path);
    if (decoded.ok()) {
      check_round_trip(*decoded);
    } else {
      check_refusal(decoded.status(), path);
    }
  }
  return 0;
}
