// Every kind of damage is refused with DataLoss and a message that names the
// file and says what is wrong -- and no bytes, however hostile, make the
// reader crash or read out of bounds (run under ASan to see the latter).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include "core/checkpoint/checkpoint_file.h"
#include "tests/checkpoint/checkpoint_test_util.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using testing_util::read_bytes;
using testing_util::sample_checkpoint;
using testing_util::TempDir;
using testing_util::write_bytes;

// Reads `bytes` as a checkpoint and expects a DataLoss refusal; returns the
// message. verify_checkpoint must refuse it too unless the checksum is valid
// (it checks header, length and CRC, not the records).
std::string refusal(const fs::path& path, const std::string& bytes, bool crc_valid = false) {
  write_bytes(path, bytes);
  StatusOr<Checkpoint> back = read_checkpoint(path);
  EXPECT_FALSE(back.ok()) << bytes.size() << " bytes were accepted";
  if (back.ok()) return "";
  EXPECT_EQ(back.status().code(), Code::kDataLoss) << back.status();
  EXPECT_THAT(back.status().message(), HasSubstr(path.string()));
  const Status verified = verify_checkpoint(path);
  if (crc_valid) {
    EXPECT_TRUE(verified.ok()) << verified;
  } else {
    EXPECT_EQ(verified.code(), Code::kDataLoss) << verified;
  }
  return back.status().message();
}

class CheckpointDamageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(write_checkpoint(good_path_, sample_checkpoint(42)).ok());
    good_ = read_bytes(good_path_);
    ASSERT_GT(good_.size(), 100u);
  }
  TempDir dir_;
  fs::path good_path_ = dir_ / "good.strata";
  fs::path path_ = dir_ / "bad.strata";
  std::string good_;
};

TEST_F(CheckpointDamageTest, TruncationAtEveryByteIsRefused) {
  for (size_t n = 0; n < good_.size(); ++n) {
    SCOPED_TRACE("truncated to " + std::to_string(n) + " bytes");
    const std::string message = refusal(path_, good_.substr(0, n));
    if (n == 0) {
      EXPECT_THAT(message, HasSubstr("empty"));
    } else {
      EXPECT_THAT(message, AnyOf(HasSubstr("too short"), HasSubstr("(truncated)")));
    }
  }
}

TEST_F(CheckpointDamageTest, EveryFlippedByteIsRefused) {
  for (size_t pos = 0; pos < good_.size(); ++pos) {
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      SCOPED_TRACE("byte " + std::to_string(pos) + " ^ " + std::to_string(mask));
      std::string bytes = good_;
      bytes[pos] = static_cast<char>(static_cast<unsigned char>(bytes[pos]) ^ mask);
      const std::string message = refusal(path_, bytes);
      if (pos < 8) {
        EXPECT_THAT(message, HasSubstr("not a Strata checkpoint"));
      } else if (pos < 16) {
        EXPECT_THAT(message, HasSubstr("unsupported"));
      } else if (pos < 24) {
        EXPECT_THAT(message, HasSubstr("length mismatch"));
      } else {
        EXPECT_THAT(message, HasSubstr("checksum mismatch: file is corrupt (expected 0x"));
      }
    }
  }
}

TEST_F(CheckpointDamageTest, ExtraBytesAtTheEndAreRefused) {
  EXPECT_THAT(refusal(path_, good_ + "x"), HasSubstr("extra bytes"));
}

TEST_F(CheckpointDamageTest, WrongMagicIsNotACheckpoint) {
  std::string bytes = good_;
  bytes.replace(0, 8, "STRATACX");
  EXPECT_THAT(refusal(path_, bytes), HasSubstr("not a Strata checkpoint"));
  EXPECT_THAT(refusal(path_, "PK\x03\x04 a zip file"), HasSubstr("not a Strata checkpoint"));
}

TEST_F(CheckpointDamageTest, EmptyFileIsRefused) {
  EXPECT_THAT(refusal(path_, ""), HasSubstr("file is empty"));
}

TEST_F(CheckpointDamageTest, RandomGarbageIsRefused) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes(rng() % 2048, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    // Half the trials start with a valid magic so the later checks are hit.
    if (trial % 2 == 1 && bytes.size() >= 8) bytes.replace(0, 8, "STRATACK");
    refusal(path_, bytes);
  }
}

// Files with a valid checksum but hostile contents: what a writer bug or a
// deliberately forged file could hold. The reader must bound every length.
class ForgedCheckpointTest : public CheckpointDamageTest {
 protected:
  static void put32(std::string& s, uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  }
  static void put64(std::string& s, uint64_t v) {
    for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  }
  // A header with these counts, then `records`, then a correct length and CRC.
  static std::string forge(uint32_t tensors, uint32_t metadata, const std::string& records) {
    std::string s = "STRATACK";
    put32(s, kCheckpointVersion);
    put32(s, 0);
    put64(s, 40 + records.size() + 4);
    put64(s, 5);
    put32(s, tensors);
    put32(s, metadata);
    s += records;
    put32(s, static_cast<uint32_t>(
                 crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size()))));
    return s;
  }
  static std::string tensor_head(const std::string& name, std::initializer_list<uint64_t> dims) {
    std::string s;
    put32(s, static_cast<uint32_t>(name.size()));
    s += name;
    put32(s, static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims) put64(s, d);
    return s;
  }
};

TEST_F(ForgedCheckpointTest, TheForgerMatchesTheWriter) {
  StatusOr<Checkpoint> ok = read_checkpoint((write_bytes(path_, forge(0, 0, "")), path_));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->step, 5);
}

TEST_F(ForgedCheckpointTest, HostileRecordsAreRefused) {
  std::string name_too_long;
  put32(name_too_long, 1u << 30);
  std::string huge_value = tensor_head("a", {});
  put32(huge_value, 0);  // the scalar's value
  put32(huge_value, 1);
  huge_value += "k";
  put32(huge_value, 0xffffffffu);
  std::string duplicate = tensor_head("w", {0}) + tensor_head("w", {0});
  const struct {
    const char* what;
    std::string bytes;
    const char* expect;
  } cases[] = {
      {"no records for the count", forge(1000000, 0, ""), "truncated"},
      {"name length beyond the limit", forge(1, 0, name_too_long), "outside 1..4096"},
      {"empty name", forge(1, 0, tensor_head("", {})), "outside 1..4096"},
      {"rank 200", forge(1, 0, tensor_head("a", {}).substr(0, 5) + std::string("\xc8\0\0\0", 4)),
       "rank 200"},
      {"negative dimension", forge(1, 0, tensor_head("a", {~0ull})), "negative dimension"},
      {"element count overflow", forge(1, 0, tensor_head("a", {1ull << 40, 1ull << 40})),
       "more elements than int64"},
      // shape_elements() would overflow on the way to the zero.
      {"overflow before a zero", forge(1, 0, tensor_head("a", {1ull << 40, 1ull << 40, 0})),
       "more elements than int64"},
      {"data shorter than the shape", forge(1, 0, tensor_head("a", {3}) + "12345678"),
       "record truncated"},
      {"shape past the end", forge(1, 0, tensor_head("a", {3}).substr(0, 13)),
       "truncated inside its shape"},
      {"metadata value past the end", forge(1, 1, huge_value), "outside 0..1048576"},
      {"duplicate names", forge(2, 0, duplicate), "appears twice"},
      {"bytes after the last record", forge(0, 0, "junk"), "unexpected bytes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_THAT(refusal(path_, c.bytes, /*crc_valid=*/true), HasSubstr(c.expect));
  }
}

TEST_F(ForgedCheckpointTest, NewerVersionIsRefusedByName) {
  std::string bytes = forge(0, 0, "");
  bytes[8] = 2;
  EXPECT_THAT(refusal(path_, bytes), HasSubstr("unsupported format version 2"));
}

}  // namespace
}  // namespace strata
