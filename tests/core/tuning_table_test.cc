// The tuning table decides AUTO's choice wherever it has a measurement, so a
// lookup must answer only inside what was measured (a stale or partial file
// may make a choice worse only where it was measured), and every mistake in
// a hand-edited file must point at its file:line:column.
#include "core/collective/tuning_table.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kRing = "p/all_reduce/ring";
constexpr const char* kTree = "p/all_reduce/tree";

constexpr const char* kValid = R"(strata_tuning: 1
command: strata bench --algorithm all --tune t.yaml
entries:
  - op: all_reduce
    device_type: cpu
    processes: 1
    local_devices: 4
    dtype: f32
    algorithm: p/all_reduce/ring
    times_us: {1024: 10, 4096: 40, 1MiB: 2000}
  - op: all_reduce
    device_type: cpu
    processes: 1
    local_devices: 4
    algorithm: p/all_reduce/tree
    times_us: {4KiB: 30, 64KiB: 90.5}
  - op: broadcast
    device_type: cpu
    processes: 2
    local_devices: 4
    dtype: i64
    algorithm: p/broadcast/tree
    times_us: {8: 3}
)";

TuningKey key(int local = 4, DType dtype = DType::kF32, int processes = 1,
              std::string device_type = "cpu") {
  TuningKey k;
  k.op = CollectiveKind::kAllReduce;
  k.device_type = std::move(device_type);
  k.processes = processes;
  k.local_devices = local;
  k.dtype = dtype;
  return k;
}

// Lookups answer seconds computed from microseconds: compare to the ulp.
auto Us(double us) { return ::testing::Optional(::testing::DoubleNear(us * 1e-6, 1e-15)); }

TuningTable valid() {
  auto table = TuningTable::parse(kValid, "t.yaml");
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? std::move(*table) : TuningTable{};
}

// The message of a parse that must fail with INVALID_ARGUMENT.
std::string error_of(std::string_view text) {
  auto table = TuningTable::parse(text, "t.yaml");
  EXPECT_FALSE(table.ok()) << "parsed but should not have:\n" << text;
  EXPECT_EQ(table.status().code(), Code::kInvalidArgument) << table.status();
  return table.status().message();
}

// One all_reduce entry starting on line 3, its keys at column 5; `extra`
// lines follow `algorithm` (line 5) and `times` is the times_us value.
std::string one_entry(std::string times = "{1024: 10}", std::string extra = "",
                      std::string algorithm = "    algorithm: p/all_reduce/ring\n") {
  return "strata_tuning: 1\nentries:\n  - op: all_reduce\n    device_type: cpu\n" + algorithm +
         extra + "    times_us: " + times + "\n";
}

TEST(TuningTable, ParsesEveryField) {
  const TuningTable t = valid();
  EXPECT_EQ(t.source(), "t.yaml");
  EXPECT_EQ(t.shape_count(), 2u);  // shapes: all_reduce 1x4 f32, broadcast 2x4 i64
  EXPECT_THAT(t.lookup(key(), kRing, 1024), Us(10));
  EXPECT_THAT(t.lookup(key(), kRing, 1 << 20), Us(2000));
  EXPECT_THAT(t.lookup(key(), kTree, 65536), Us(90.5));  // dtype left out: f32
  TuningKey bcast = key(4, DType::kI64, 2);
  bcast.op = CollectiveKind::kBroadcast;
  EXPECT_THAT(t.lookup(bcast, "p/broadcast/tree", 8), Us(3));
  EXPECT_EQ(key().to_string(), "all_reduce f32 on 1 process(es) x 4 cpu device(s)");
}

TEST(TuningTable, InterpolatesOnALogLogScale) {
  const TuningTable t = valid();
  // 10us at 1 KiB and 40us at 4 KiB lie on t ~ bytes: 2 KiB takes 20us.
  EXPECT_THAT(t.lookup(key(), kRing, 2048), Us(20));
  // Halfway between 4 KiB and 1 MiB on the log scale is 64 KiB, where the
  // geometric mean of 40us and 2000us answers; a linear scale would not.
  EXPECT_THAT(t.lookup(key(), kRing, 65536), Us(std::sqrt(40.0 * 2000.0)));
  EXPECT_THAT(t.lookup(key(), kTree, 16384), Us(std::sqrt(30.0 * 90.5)));
}

TEST(TuningTable, AnswersNothingOutsideWhatWasMeasured) {
  const TuningTable t = valid();
  EXPECT_EQ(t.lookup(key(), kRing, 1023), std::nullopt);
  EXPECT_EQ(t.lookup(key(), kRing, (1 << 20) + 1), std::nullopt);
  EXPECT_EQ(t.lookup(key(), kRing, 0), std::nullopt);
  EXPECT_EQ(t.lookup(key(), kTree, 2048), std::nullopt);  // ring's range is not tree's
  EXPECT_EQ(t.lookup(key(), "p/all_reduce/other", 4096), std::nullopt);
  EXPECT_EQ(t.lookup(key(2), kRing, 4096), std::nullopt);
  EXPECT_EQ(t.lookup(key(4, DType::kF32, 2), kRing, 4096), std::nullopt);
  EXPECT_EQ(t.lookup(key(4, DType::kF32, 1, "cuda"), kRing, 4096), std::nullopt);
  TuningKey bcast = key();
  bcast.op = CollectiveKind::kBroadcast;
  EXPECT_EQ(t.lookup(bcast, kRing, 4096), std::nullopt);
}

TEST(TuningTable, ADTypeOfTheSameWidthStandsIn) {
  const TuningTable t = valid();
  EXPECT_THAT(t.lookup(key(4, DType::kI32), kRing, 4096), Us(40));
  EXPECT_EQ(t.lookup(key(4, DType::kF64), kRing, 4096), std::nullopt);
  EXPECT_EQ(t.lookup(key(4, DType::kF16), kRing, 4096), std::nullopt);
  EXPECT_TRUE(t.covers(key(4, DType::kI32), 4096));
  EXPECT_FALSE(t.covers(key(4, DType::kF64), 4096));
}

TEST(TuningTable, CoversWhereAnyAlgorithmWasMeasured) {
  const TuningTable t = valid();
  EXPECT_TRUE(t.covers(key(), 1024));       // ring only
  EXPECT_TRUE(t.covers(key(), 1 << 20));    // ring only
  EXPECT_TRUE(t.covers(key(), 65536));      // both
  EXPECT_FALSE(t.covers(key(), 1023));
  EXPECT_FALSE(t.covers(key(), (1 << 20) + 1));
  EXPECT_FALSE(t.covers(key(8), 4096));
}

TEST(TuningTable, ToYamlRoundTrips) {
  TuningTable t = valid();
  t.set_command("strata bench --tune again.yaml");
  const std::string text = t.to_yaml();
  auto back = TuningTable::parse(text, "back.yaml");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
  EXPECT_EQ(back->shape_count(), t.shape_count());
  for (uint64_t bytes : {uint64_t{512}, uint64_t{1024}, uint64_t{3000}, uint64_t{4096},
                         uint64_t{65536}, uint64_t{1} << 20, uint64_t{1} << 21}) {
    EXPECT_EQ(back->lookup(key(), kRing, bytes), t.lookup(key(), kRing, bytes)) << bytes;
    EXPECT_EQ(back->lookup(key(), kTree, bytes), t.lookup(key(), kTree, bytes)) << bytes;
  }
  TuningKey bcast = key(4, DType::kI64, 2);
  bcast.op = CollectiveKind::kBroadcast;
  EXPECT_THAT(back->lookup(bcast, "p/broadcast/tree", 8), Us(3));
  EXPECT_THAT(text, HasSubstr("command: strata bench --tune again.yaml"));
  // Rewriting must be a stable diff.
  EXPECT_EQ(back->to_yaml(), text);
}

TEST(TuningTable, SetReplacesWhatWasKnown) {
  TuningTable t = valid();
  t.set(key(), kRing, {{8192, 5}, {16384, 7}});
  EXPECT_EQ(t.lookup(key(), kRing, 1024), std::nullopt);  // the old range is gone
  EXPECT_THAT(t.lookup(key(), kRing, 8192), Us(5));
  EXPECT_THAT(t.lookup(key(), kTree, 4096), Us(30));  // the other algorithm stays
  t.set(key(8), kTree, {{64, 1}});
  EXPECT_EQ(t.shape_count(), 3u);
  EXPECT_THAT(t.lookup(key(8), kTree, 64), Us(1));
  auto back = TuningTable::parse(t.to_yaml(), "back.yaml");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(back->lookup(key(), kRing, 16384), Us(7));
  EXPECT_EQ(back->lookup(key(), kRing, 4096), std::nullopt);
}

TEST(TuningTableErrors, EmptyFile) {
  // Nothing to point at: the file alone, as for an empty config.
  EXPECT_EQ(error_of(""), "t.yaml: the tuning file is empty");
  EXPECT_EQ(error_of("# nothing measured yet\n"), "t.yaml: the tuning file is empty");
}

TEST(TuningTableErrors, VersionLine) {
  EXPECT_EQ(error_of("entries: []\n"),
            "t.yaml:1:1: missing 'strata_tuning: 1' at the top; is this a tuning file?");
  EXPECT_EQ(error_of("strata_tuning: 2\nentries: []\n"),
            "t.yaml:1:16: strata_tuning: expected tuning format 1, the only one this build of "
            "Strata reads, got '2'");
  EXPECT_THAT(error_of("strata: 1\n"), StartsWith("t.yaml:1:1: unknown key 'strata' at the top"));
}

TEST(TuningTableErrors, EntryKeys) {
  EXPECT_EQ(error_of(one_entry("{1024: 10}", "    colour: red\n")),
            "t.yaml:6:5: unknown key 'colour' in entries[0]; expected one of: op, device_type, "
            "processes, local_devices, dtype, algorithm, times_us");
  EXPECT_EQ(error_of(one_entry("{1024: 10}", "", "")),
            "t.yaml:3:5: entries[0]: missing 'algorithm'");
  EXPECT_THAT(error_of(one_entry("{1024: 10}", "    local_devices: 0\n")),
              StartsWith("t.yaml:6:20: entries[0].local_devices: expected a whole number"));
  EXPECT_THAT(error_of(one_entry("{1024: 10}", "    dtype: f33\n")),
              StartsWith("t.yaml:6:12: entries[0].dtype: expected an element type"));
}

TEST(TuningTableErrors, Times) {
  // "    times_us: {" puts the first size at column 16.
  EXPECT_THAT(error_of(one_entry("{1024: 0}")),
              StartsWith("t.yaml:6:22: entries[0].times_us.1024: expected a time in "
                         "microseconds greater than 0, got '0'"));
  EXPECT_THAT(error_of(one_entry("{1024: -3}")),
              StartsWith("t.yaml:6:22: entries[0].times_us.1024: expected a time in "
                         "microseconds greater than 0, got '-3'"));
  EXPECT_THAT(error_of(one_entry("{1024: fast}")),
              StartsWith("t.yaml:6:22: entries[0].times_us.1024: expected a time in "
                         "microseconds greater than 0, got 'fast'"));
  EXPECT_THAT(error_of(one_entry("{1024: .nan}")), HasSubstr("got '.nan'"));
  EXPECT_EQ(error_of(one_entry("{0: 5}")),
            "t.yaml:6:16: entries[0].times_us.0: a measured size must be greater than 0 bytes");
  EXPECT_EQ(error_of(one_entry("{4XB: 5}")),
            "t.yaml:6:16: entries[0].times_us.4XB: expected a size like 32MiB, got '4XB': "
            "unknown size unit 'XB' in '4XB'; expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB");
  EXPECT_EQ(error_of(one_entry("{}")),
            "t.yaml:6:15: entries[0].times_us: needs at least one 'bytes: microseconds' "
            "measurement");
  // One size written twice in different units is ambiguous, not a choice.
  EXPECT_EQ(error_of(one_entry("{4096: 10, 4KiB: 12}")),
            "t.yaml:6:26: entries[0].times_us.4KiB: a second measurement of 4096 bytes");
}

TEST(TuningTableErrors, DuplicateEntry) {
  const std::string entry =
      "  - {op: all_reduce, device_type: cpu, algorithm: p/all_reduce/ring, times_us: {8: 1}}\n";
  EXPECT_EQ(error_of("strata_tuning: 1\nentries:\n" + entry + entry),
            "t.yaml:4:5: entries[1]: a second entry for p/all_reduce/ring on all_reduce f32 on "
            "1 process(es) x 1 cpu device(s)");
  // Another shape is another entry.
  EXPECT_TRUE(TuningTable::parse("strata_tuning: 1\nentries:\n" + entry +
                                     "  - {op: all_reduce, device_type: cpu, dtype: f64, "
                                     "algorithm: p/all_reduce/ring, times_us: {8: 1}}\n",
                                 "t.yaml")
                  .ok());
}

TEST(TuningTableErrors, YamlSyntax) {
  EXPECT_EQ(error_of("strata_tuning: 1\nentries: [a, b\n"),
            "t.yaml:3:1: end of sequence flow not found");
  EXPECT_EQ(error_of("strata_tuning: 1\n b: 2\n"), "t.yaml:2:3: illegal map value");
}

TEST(TuningTableLoad, MissingFileIsNotFound) {
  auto table = TuningTable::load("/nonexistent/strata/tuning.yaml");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), Code::kNotFound);
  EXPECT_EQ(table.status().message(),
            "tuning file '/nonexistent/strata/tuning.yaml' does not exist");
}

TEST(TuningTableLoad, ReadsAFileAndNamesIt) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                  ("strata_tuning_test_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(p) << kValid;
  auto table = TuningTable::load(p.string());
  std::filesystem::remove(p);
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->source(), p.string());
  EXPECT_THAT(table->lookup(key(), kRing, 4096), Us(40));
}

}  // namespace
}  // namespace strata
