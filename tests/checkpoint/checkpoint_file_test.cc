// The checkpoint file: values come back bit for bit whatever they are, and a
// write that fails for any reason leaves the previous file as it was and no
// temp file behind.
#include "core/checkpoint/checkpoint_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/checkpoint/atomic_file.h"
#include "tests/checkpoint/checkpoint_test_util.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_util::bit_equal;
using testing_util::read_bytes;
using testing_util::sample_checkpoint;
using testing_util::temp_files;
using testing_util::TempDir;

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }

void expect_same(const Checkpoint& want, const Checkpoint& got) {
  EXPECT_EQ(want.step, got.step);
  EXPECT_EQ(want.metadata, got.metadata);
  ASSERT_EQ(want.tensors.size(), got.tensors.size());
  for (const auto& [name, tensor] : want.tensors) {
    auto it = got.tensors.find(name);
    ASSERT_NE(it, got.tensors.end()) << name;
    EXPECT_TRUE(bit_equal(tensor, it->second)) << name;
  }
}

TEST(CheckpointFileTest, RoundTripIsBitExact) {
  TempDir dir;
  Checkpoint ckpt;
  ckpt.step = 1234567890123;
  ckpt.tensors["scalar"] = Tensor::scalar(3.5f);
  ckpt.tensors["empty"] = Tensor({0}, std::vector<float>{});
  ckpt.tensors["empty_inner"] = Tensor({2, 0, 3}, std::vector<float>{});
  std::vector<float> big(7 * 11 * 5);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) * 0.37f - 40.0f;
  ckpt.tensors["conv/kernel"] = Tensor({7, 11, 5}, big);
  ckpt.tensors["rank8"] = Tensor({1, 2, 1, 2, 1, 1, 2, 1}, std::vector<float>(8, -1.5f));
  // Values a float round trip through text or arithmetic would change.
  ckpt.tensors["special"] = Tensor(
      {10},
      std::vector<float>{from_bits(0x7fc00001), from_bits(0xffa00123),         // NaN payloads
                         -0.0f, from_bits(0x00000001), from_bits(0x807fffff),  // denormals
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max(),
                         std::numeric_limits<float>::min(), from_bits(0x7f800001)});
  ckpt.tensors[std::string(kCheckpointMaxNameBytes, 'n')] = Tensor::scalar(1.0f);
  ckpt.metadata = {{"strategy", "mirrored"}, {"replicas", "4"}, {"empty", ""}};

  const fs::path path = dir / "a.strata";
  ASSERT_TRUE(write_checkpoint(path, ckpt).ok());
  EXPECT_TRUE(temp_files(dir.path()).empty());
  EXPECT_EQ(read_bytes(path).substr(0, 8), "STRATACK");
  StatusOr<Checkpoint> back = read_checkpoint(path);
  ASSERT_TRUE(back.ok()) << back.status();
  expect_same(ckpt, *back);
  EXPECT_TRUE(verify_checkpoint(path).ok());
}

TEST(CheckpointFileTest, EmptyCheckpointAndNegativeStepRoundTrip) {
  TempDir dir;
  Checkpoint ckpt;
  ckpt.step = -7;
  ASSERT_TRUE(write_checkpoint(dir / "e.strata", ckpt).ok());
  StatusOr<Checkpoint> back = read_checkpoint(dir / "e.strata");
  ASSERT_TRUE(back.ok()) << back.status();
  expect_same(ckpt, *back);
}

TEST(CheckpointFileTest, RewriteReplacesTheWholeFile) {
  TempDir dir;
  const fs::path path = dir / "a.strata";
  ASSERT_TRUE(write_checkpoint(path, sample_checkpoint(1, 1.0f)).ok());
  ASSERT_TRUE(write_checkpoint(path, sample_checkpoint(2, 9.0f)).ok());
  StatusOr<Checkpoint> back = read_checkpoint(path);
  ASSERT_TRUE(back.ok()) << back.status();
  expect_same(sample_checkpoint(2, 9.0f), *back);
}

TEST(CheckpointFileTest, MissingFileIsNotFoundNamingThePath) {
  TempDir dir;
  const fs::path path = dir / "nope.strata";
  StatusOr<Checkpoint> back = read_checkpoint(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), Code::kNotFound);
  EXPECT_THAT(back.status().message(), HasSubstr(path.string()));
  EXPECT_EQ(verify_checkpoint(path).code(), Code::kNotFound);
}

TEST(CheckpointFileTest, DirectoryIsNotACheckpoint) {
  TempDir dir;
  StatusOr<Checkpoint> back = read_checkpoint(dir.path());
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("not a regular file"));
}

TEST(CheckpointFileTest, InvalidTensorsAreRefusedBeforeWriting) {
  TempDir dir;
  const fs::path path = dir / "a.strata";
  ASSERT_TRUE(write_checkpoint(path, sample_checkpoint(1)).ok());
  const std::string before = read_bytes(path);
  const std::vector<std::pair<std::string, Tensor>> bad = {
      {"mismatch", Tensor({2, 2}, std::vector<float>{1, 2, 3})},
      {"rank9", Tensor(Shape(9, 1), std::vector<float>{1})},
      {"", Tensor::scalar(1)},
      {std::string(kCheckpointMaxNameBytes + 1, 'x'), Tensor::scalar(1)}};
  for (const auto& [name, tensor] : bad) {
    Checkpoint ckpt = sample_checkpoint(2);
    ckpt.tensors[name] = tensor;
    const Status s = write_checkpoint(path, ckpt);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name.substr(0, 20);
    EXPECT_THAT(s.message(), HasSubstr(path.string()));
  }
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

// Runs as root in CI, so permissions cannot make a write fail; a target that
// is a directory, a parent that is a file, and a file size limit can.
TEST(CheckpointFileTest, TargetThatIsADirectoryFailsCleanly) {
  TempDir dir;
  const fs::path target = dir / "ckpt.strata";
  fs::create_directory(target);
  const Status s = write_checkpoint(target, sample_checkpoint(1));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(target.string()));
  EXPECT_THAT(s.message(), HasSubstr("existing file is unchanged"));
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(CheckpointFileTest, ParentThatIsAFileFailsCleanly) {
  TempDir dir;
  testing_util::write_bytes(dir / "file", "x");
  const fs::path target = dir / "file" / "ckpt.strata";
  const Status s = write_checkpoint(target, sample_checkpoint(1));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(target.string()));
  EXPECT_EQ(read_bytes(dir / "file"), "x");
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

// A disk that fills up mid-write: RLIMIT_FSIZE makes write() fail with EFBIG
// (SIGXFSZ ignored) part way through, even for root.
TEST(CheckpointFileTest, WriteFailingMidwayKeepsThePreviousFile) {
  TempDir dir;
  const fs::path path = dir / "ckpt.strata";
  ASSERT_TRUE(write_checkpoint(path, sample_checkpoint(1)).ok());
  const std::string before = read_bytes(path);

  Checkpoint large = sample_checkpoint(2);
  large.tensors["big"] = Tensor({1 << 16}, 1.0f);  // 256 KiB
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status s = write_checkpoint(path, large);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, old_handler);

  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(path.string()));
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_TRUE(temp_files(dir.path()).empty());
  EXPECT_TRUE(read_checkpoint(path).ok());
}

TEST(AtomicFileTest, DroppedWithoutCommitLeavesNothing) {
  TempDir dir;
  const fs::path target = dir / "index";
  ASSERT_TRUE(write_file_atomically(target, "old").ok());
  {
    StatusOr<AtomicFile> file = AtomicFile::create(target);
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_TRUE(file->write("new").ok());
    EXPECT_TRUE(fs::exists(file->temp_path()));
    EXPECT_EQ(file->temp_path().parent_path(), dir.path());
  }
  EXPECT_EQ(read_bytes(target), "old");
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

}  // namespace
}  // namespace strata
