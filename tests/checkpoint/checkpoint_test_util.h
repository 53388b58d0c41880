// Shared by the checkpoint tests: a fresh directory per test, file bytes in
// and out, bit-exact tensor comparison and a sample checkpoint.
#ifndef STRATA_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_
#define STRATA_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint_file.h"

namespace strata::testing_util {

namespace fs = std::filesystem;

// A directory unique to this process and test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / ("strata_ckpt_" + std::to_string(::getpid()) + "_" +
                                         info->test_suite_name() + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// stdio rather than istreambuf_iterator, which trips g++ 12's
// -Wnull-dereference inside <streambuf> at -O2.
inline std::string read_bytes(const fs::path& path) {
  std::string bytes;
  if (std::FILE* file = std::fopen(path.c_str(), "rb")) {
    char chunk[4096];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) bytes.append(chunk, n);
    std::fclose(file);
  }
  return bytes;
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Files a failed or interrupted write could leave behind.
inline std::vector<std::string> temp_files(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp-") != std::string::npos) found.push_back(name);
  }
  return found;
}

// Same shape and the same bits in every element (NaN payloads, -0.0).
inline ::testing::AssertionResult bit_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) {
    return ::testing::AssertionFailure()
           << "shapes " << shape_string(a.shape()) << " and " << shape_string(b.shape());
  }
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (int64_t i = 0; i < a.size(); ++i) {
    const auto x = std::bit_cast<uint32_t>(a[i]);
    const auto y = std::bit_cast<uint32_t>(b[i]);
    if (x != y) {
      return ::testing::AssertionFailure()
             << "element " << i << ": 0x" << std::hex << x << " vs 0x" << y;
    }
  }
  return ::testing::AssertionSuccess();
}

// A small checkpoint whose values depend on `seed`.
inline Checkpoint sample_checkpoint(int64_t step, float seed = 1.0f) {
  Checkpoint ckpt;
  ckpt.step = step;
  ckpt.tensors["dense/kernel"] = Tensor({2, 3}, std::vector<float>{seed, 2, 3, 4, 5, -seed});
  ckpt.tensors["dense/bias"] = Tensor({3}, std::vector<float>{0.5f, -0.25f, seed});
  ckpt.tensors["global_step"] = Tensor::scalar(static_cast<float>(step));
  ckpt.metadata["strategy"] = "mirrored";
  ckpt.metadata["replicas"] = "4";
  return ckpt;
}

}  // namespace strata::testing_util

#endif  // STRATA_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_
