// The digits loader: the real file's shape, range and labels, and a clear
// error -- naming the file, and the line where there is one -- for every
// way the file can be missing or damaged.
#include "core/data/digits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string real_file() {
  return (fs::path(STRATA_SOURCE_DIR) / "examples" / "data" / "digits.csv.gz").string();
}

std::string line_of(int pixel, int label) {
  std::string line;
  for (int i = 0; i < 64; ++i) line += std::to_string(pixel) + ",";
  return line + std::to_string(label) + "\n";
}

class DigitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("strata_digits_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    if (const char* env = std::getenv("STRATA_DIGITS")) saved_env_ = env;
    ::unsetenv("STRATA_DIGITS");
  }
  void TearDown() override {
    if (saved_env_) {
      ::setenv("STRATA_DIGITS", saved_env_->c_str(), 1);
    } else {
      ::unsetenv("STRATA_DIGITS");
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string write_gz(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    gzclose(f);
    return path;
  }

  std::string write_bytes(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static std::string read_bytes(const std::string& path) {
    std::string bytes(static_cast<size_t>(fs::file_size(path)), '\0');
    std::ifstream(path, std::ios::binary).read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bytes;
  }

  fs::path dir_;
  std::optional<std::string> saved_env_;
};

TEST_F(DigitsTest, LoadsAll1797ImagesScaledToUnitRangeWithLabels0To9) {
  StatusOr<DigitsData> data = load_digits_csv_gz(real_file());
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->features.shape(), (Shape{1797, 64}));
  EXPECT_EQ(data->labels.shape(), (Shape{1797}));
  const auto [lo, hi] =
      std::minmax_element(data->features.values().begin(), data->features.values().end());
  EXPECT_EQ(*lo, 0.0f);
  EXPECT_EQ(*hi, 1.0f);  // a pixel of 16
  std::vector<int> per_class(10, 0);
  for (float label : data->labels.values()) {
    ASSERT_GE(label, 0.0f);
    ASSERT_LE(label, 9.0f);
    ASSERT_EQ(label, static_cast<float>(static_cast<int>(label)));
    ++per_class[static_cast<size_t>(label)];
  }
  for (int count : per_class) EXPECT_GT(count, 170);  // ~180 of each digit
  // The file's first line: 0,0,5,13,9,1,0,0,... label 0.
  EXPECT_EQ(data->features.at(0, 2), 5.0f / 16.0f);
  EXPECT_EQ(data->features.at(0, 3), 13.0f / 16.0f);
  EXPECT_EQ(data->labels[0], 0.0f);
  EXPECT_EQ(data->labels[1], 1.0f);
}

TEST_F(DigitsTest, AMissingFileIsNotFoundNamingIt) {
  const std::string path = (dir_ / "nope.csv.gz").string();
  StatusOr<DigitsData> data = load_digits_csv_gz(path);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), Code::kNotFound);
  EXPECT_THAT(data.status().message(), HasSubstr(path));
}

TEST_F(DigitsTest, TruncatedOrCorruptGzipIsDataLoss) {
  const std::string good = read_bytes(real_file());
  ASSERT_GT(good.size(), 1000u);
  const std::string truncated = write_bytes("truncated.csv.gz", good.substr(0, good.size() / 2));
  StatusOr<DigitsData> t = load_digits_csv_gz(truncated);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kDataLoss);
  EXPECT_THAT(t.status().message(), HasSubstr(truncated));
  EXPECT_THAT(t.status().message(), HasSubstr("truncated"));

  std::string damaged = good;
  for (size_t i = good.size() / 2; i < good.size() / 2 + 64; ++i) damaged[i] ^= '\x5a';
  const std::string corrupt = write_bytes("corrupt.csv.gz", damaged);
  StatusOr<DigitsData> c = load_digits_csv_gz(corrupt);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kDataLoss);
  EXPECT_THAT(c.status().message(), HasSubstr(corrupt));
}

TEST_F(DigitsTest, APlainTextFileIsNotTakenForGzip) {
  const std::string plain = write_bytes("plain.csv.gz", line_of(1, 2));
  StatusOr<DigitsData> data = load_digits_csv_gz(plain);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), Code::kDataLoss);
  EXPECT_THAT(data.status().message(), HasSubstr("not gzip-compressed"));
}

TEST_F(DigitsTest, BadLinesAreReportedWithFileAndLine) {
  struct Case {
    std::string third_line;
    std::string message;
  };
  const std::string short_line = line_of(1, 2).substr(2);  // 64 fields
  for (const Case& c :
       {Case{short_line, ":3: expected 65 comma-separated fields (64 pixels, then the label), "
                         "found 64"},
        Case{"1.5" + line_of(1, 2).substr(1), ":3: field 1 '1.5' is not an integer"},
        Case{"x" + line_of(1, 2).substr(1), ":3: field 1 'x' is not an integer"},
        Case{"17" + line_of(1, 2).substr(1), ":3: pixel (field 1) is 17, outside 0..16"},
        Case{line_of(1, 10), ":3: label (field 65) is 10, outside 0..9"}}) {
    const std::string path = write_gz("bad.csv.gz", line_of(0, 1) + line_of(16, 9) + c.third_line);
    StatusOr<DigitsData> data = load_digits_csv_gz(path);
    ASSERT_FALSE(data.ok()) << c.message;
    EXPECT_EQ(data.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(data.status().message(), HasSubstr(path + c.message));
  }
}

TEST_F(DigitsTest, ToleratesCrlfAndBlankLinesButNotAnEmptyFile) {
  std::string crlf = line_of(8, 3);
  crlf.insert(crlf.size() - 1, "\r");
  StatusOr<DigitsData> data = load_digits_csv_gz(write_gz("crlf.csv.gz", crlf + "\n" + crlf));
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->features.shape(), (Shape{2, 64}));
  EXPECT_EQ(data->features[5], 0.5f);
  EXPECT_EQ(data->labels[1], 3.0f);

  StatusOr<DigitsData> empty = load_digits_csv_gz(write_gz("empty.csv.gz", "\n\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("holds no examples"));
}

TEST_F(DigitsTest, FindDigitsFilePrefersTheEnvironmentThenTheSourceTree) {
  StatusOr<std::string> found = find_digits_file(STRATA_SOURCE_DIR);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_TRUE(fs::equivalent(*found, real_file()));

  const std::string other = write_gz("other.csv.gz", line_of(0, 0));
  ::setenv("STRATA_DIGITS", other.c_str(), 1);
  EXPECT_EQ(*find_digits_file(STRATA_SOURCE_DIR), other);

  ::setenv("STRATA_DIGITS", (dir_ / "missing.csv.gz").c_str(), 1);
  StatusOr<std::string> missing = find_digits_file(STRATA_SOURCE_DIR);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("STRATA_DIGITS names"));

  ::unsetenv("STRATA_DIGITS");
  StatusOr<std::string> no_tree = find_digits_file(dir_.string());
  ASSERT_FALSE(no_tree.ok());
  EXPECT_THAT(no_tree.status().message(), HasSubstr("set STRATA_DIGITS"));
}

}  // namespace
}  // namespace strata
