// Sizes and durations come from configs and command lines written by
// people; every accepted spelling and every refusal (with its hint) is
// pinned, because a silent misreading becomes a wrong pack size or deadline.
#include "core/common/units.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * 1024;
constexpr uint64_t kGiB = kMiB * 1024;
constexpr uint64_t kTiB = kGiB * 1024;

TEST(ParseSizeTest, AcceptsEveryUnit) {
  const std::pair<const char*, uint64_t> cases[] = {
      {"0", 0},           {"4096", 4096},        {"8B", 8},
      {"1KB", 1000},      {"2MB", 2000000},      {"3GB", 3000000000},
      {"4TB", 4000000000000}, {"1KiB", kKiB},    {"32MiB", 32 * kMiB},
      {"1GiB", kGiB},     {"2TiB", 2 * kTiB},    {"4K", 4 * kKiB},
      {"64M", 64 * kMiB}, {"1G", kGiB},          {"1.5KiB", 1536},
      {"0.5MiB", 512 * kKiB}, {"2.5KB", 2500},
  };
  for (const auto& [text, bytes] : cases) {
    auto parsed = parse_size(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(*parsed, bytes) << text;
  }
}

TEST(ParseSizeTest, IgnoresSpacesAroundAndBetween) {
  for (const char* text : {"4 KiB", "  4KiB", "4KiB  ", "\t4 \tKiB\n"}) {
    auto parsed = parse_size(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(*parsed, 4 * kKiB) << text;
  }
}

TEST(ParseSizeTest, UnknownUnitListsTheExpectedUnits) {
  auto parsed = parse_size("4 kib");  // units are case-sensitive: kb vs Kb vs KiB
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(),
            "unknown size unit 'kib' in '4 kib'; expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB");
  EXPECT_THAT(parse_size("10 bytes").status().message(), HasSubstr("unknown size unit 'bytes'"));
}

TEST(ParseSizeTest, NonNumbersShowAnExample) {
  for (const char* text : {"", "MiB", "-1KiB", "lots", "1.2.3"}) {
    auto parsed = parse_size(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), "'" + std::string(text) +
                                             "' is not a size (e.g. 4096, 64KiB, 32MiB, 1GB)");
  }
}

TEST(ParseSizeTest, RefusesFractionalBytes) {
  for (const char* text : {"1.5", "1.5B", "0.001KiB", "2.0001KB"}) {
    auto parsed = parse_size(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().message(),
              "size '" + std::string(text) + "' is not a whole number of bytes");
  }
}

TEST(ParseSizeTest, RefusesSizesBeyond64Bits) {
  auto parsed = parse_size("100000000TB");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "size '100000000TB' is too large");
}

TEST(ParseDurationTest, AcceptsEveryUnit) {
  const std::pair<const char*, std::chrono::nanoseconds> cases[] = {
      {"850ns", 850ns}, {"3us", 3us},     {"250ms", 250ms},   {"300s", 300s},
      {"5m", 5min},     {"2h", 2h},       {"1.5s", 1500ms},   {"0.25ms", 250us},
      {" 30 s ", 30s},  {"0s", 0ns},
  };
  for (const auto& [text, expected] : cases) {
    auto parsed = parse_duration(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(parsed->count(), expected.count()) << text;
  }
}

TEST(ParseDurationTest, BareNumberIsRefusedWithAHint) {
  // "30" could be seconds or milliseconds; guessing is how deadlines go wrong.
  auto parsed = parse_duration("30");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(), "duration '30' has no unit; write e.g. '30s' or '30ms'");
}

TEST(ParseDurationTest, UnknownUnitAndNonNumbers) {
  auto day = parse_duration("1d");
  ASSERT_FALSE(day.ok());
  EXPECT_EQ(day.status().message(),
            "unknown duration unit 'd' in '1d'; expected ns, us, ms, s, m or h");
  auto seconds = parse_duration("10 sec");
  ASSERT_FALSE(seconds.ok());
  EXPECT_THAT(seconds.status().message(), HasSubstr("unknown duration unit 'sec'"));

  auto word = parse_duration("soon");
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.status().message(), "'soon' is not a duration (e.g. 300s, 250ms, 5m)");
  auto negative = parse_duration("-5s");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), Code::kInvalidArgument);
}

TEST(ParseDurationTest, RefusesDurationsBeyond64BitNanoseconds) {
  auto parsed = parse_duration("3000000h");  // ~342 years
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "duration '3000000h' is too long");
}

TEST(FormatSizeTest, LargestBinaryUnitWithoutNeedlessDecimals) {
  EXPECT_EQ(format_size(0), "0 B");
  EXPECT_EQ(format_size(8), "8 B");
  EXPECT_EQ(format_size(1023), "1023 B");
  EXPECT_EQ(format_size(1024), "1 KiB");
  EXPECT_EQ(format_size(1536), "1.50 KiB");
  EXPECT_EQ(format_size(64 * kMiB), "64 MiB");
  EXPECT_EQ(format_size(kGiB + kGiB / 4), "1.25 GiB");
  EXPECT_EQ(format_size(3 * kTiB), "3 TiB");
  EXPECT_EQ(format_size(2048 * kTiB), "2048 TiB");  // TiB is the largest unit
}

TEST(FormatSizeTest, RoundTripsThroughParseSize) {
  for (uint64_t bytes : {uint64_t{1}, kKiB, 3 * kMiB, 5 * kGiB, 7 * kTiB}) {
    auto parsed = parse_size(format_size(bytes));
    ASSERT_TRUE(parsed.ok()) << format_size(bytes) << ": " << parsed.status();
    EXPECT_EQ(*parsed, bytes);
  }
}

TEST(FormatDurationTest, PicksAReadableUnit) {
  EXPECT_EQ(format_duration(0ns), "0 ns");
  EXPECT_EQ(format_duration(850ns), "850 ns");
  EXPECT_EQ(format_duration(1500ns), "1.50 us");
  EXPECT_EQ(format_duration(1250us), "1.25 ms");
  EXPECT_EQ(format_duration(1500ms), "1.5 s");
  EXPECT_EQ(format_duration(30s), "30 s");
  EXPECT_EQ(format_duration(300s), "300 s");
  // Long timeouts appear in error messages; no scientific notation there.
  EXPECT_EQ(format_duration(1h), "3600 s");
  EXPECT_EQ(format_duration(999800ms), "1000 s");
}

}  // namespace
}  // namespace strata
