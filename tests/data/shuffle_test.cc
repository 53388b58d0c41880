// shuffle(): a permutation, fixed by the seed, different for another seed
// and for every epoch or iteration, with tf.data's buffer semantics (an
// element can only be drawn once it has entered the buffer).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/data/dataset.h"
#include "dataset_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing_data::labels_of;
using testing_data::numbered;

constexpr int64_t kN = 100;

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

bool is_permutation_of_range(std::vector<int64_t> v, int64_t n) {
  std::sort(v.begin(), v.end());
  return v == iota(n);
}

TEST(ShuffleTest, AFullBufferGivesAPermutationFixedByTheSeed) {
  // Two datasets built alike: the same order, whatever else ran before.
  const std::vector<int64_t> a = labels_of(*numbered(kN).shuffle(kN, 7));
  const std::vector<int64_t> b = labels_of(*numbered(kN).shuffle(kN, 7));
  EXPECT_EQ(a, b);
  EXPECT_TRUE(is_permutation_of_range(a, kN));
  EXPECT_NE(a, iota(kN));
  EXPECT_EQ(numbered(kN).shuffle(kN, 7)->cardinality(), kN);
}

TEST(ShuffleTest, AnotherSeedGivesAnotherOrder) {
  const std::vector<int64_t> a = labels_of(*numbered(kN).shuffle(kN, 7));
  for (uint64_t seed : {8ull, 0ull, 1ull << 40}) {
    EXPECT_NE(labels_of(*numbered(kN).shuffle(kN, seed)), a) << seed;
  }
}

TEST(ShuffleTest, EveryEpochOfARepeatIsReshuffled) {
  const std::vector<int64_t> all = labels_of(*numbered(kN).shuffle(kN, 3)->repeat(3));
  ASSERT_EQ(all.size(), static_cast<size_t>(3 * kN));
  std::vector<std::vector<int64_t>> epochs;
  for (int e = 0; e < 3; ++e) {
    epochs.emplace_back(all.begin() + e * kN, all.begin() + (e + 1) * kN);
    EXPECT_TRUE(is_permutation_of_range(epochs.back(), kN)) << "epoch " << e;
  }
  EXPECT_NE(epochs[0], epochs[1]);
  EXPECT_NE(epochs[1], epochs[2]);
  // The same pipeline built again replays the same epochs.
  EXPECT_EQ(labels_of(*numbered(kN).shuffle(kN, 3)->repeat(3)), all);
}

TEST(ShuffleTest, EachIterationReshufflesUnlessAskedNotTo) {
  const Dataset reshuffled = *numbered(kN).shuffle(kN, 5);
  const std::vector<int64_t> first = labels_of(reshuffled);
  const std::vector<int64_t> second = labels_of(reshuffled);
  EXPECT_NE(first, second);
  // Iteration k is iteration k however it is reached: two iterations of a
  // dataset are the two epochs of a fresh repeat.
  const std::vector<int64_t> epochs = labels_of(*numbered(kN).shuffle(kN, 5)->repeat(2));
  EXPECT_TRUE(std::equal(first.begin(), first.end(), epochs.begin()));
  EXPECT_TRUE(std::equal(second.begin(), second.end(), epochs.begin() + kN));

  const Dataset fixed = *numbered(kN).shuffle(kN, 5, /*reshuffle_each_iteration=*/false);
  EXPECT_EQ(labels_of(fixed), labels_of(fixed));
  EXPECT_EQ(labels_of(fixed), first);  // iteration 0 of the same seed
  const std::vector<int64_t> repeated = labels_of(*fixed.repeat(2));
  EXPECT_TRUE(std::equal(first.begin(), first.end(), repeated.begin() + kN));
}

TEST(ShuffleTest, ABufferOfOneKeepsTheOrder) {
  EXPECT_THAT(labels_of(*numbered(10).shuffle(1, 9)), ElementsAreArray(iota(10)));
}

TEST(ShuffleTest, ASmallBufferOnlyDrawsFromWhatHasEnteredIt) {
  // With a buffer of b, output position i has seen inputs 0 .. i + b - 1.
  constexpr int64_t kBuffer = 4;
  const std::vector<int64_t> out = labels_of(*numbered(kN).shuffle(kBuffer, 11));
  ASSERT_TRUE(is_permutation_of_range(out, kN));
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_LT(out[i], static_cast<int64_t>(i) + kBuffer) << "position " << i;
  }
  EXPECT_NE(out, iota(kN));
}

TEST(ShuffleTest, ShardBeforeShuffleSplitsTheDataWithoutOverlap) {
  // Each worker: shard(2, w) then shuffle with the same seed.
  std::vector<int64_t> both = labels_of(*numbered(kN).shard(2, 0)->shuffle(kN, 1));
  const std::vector<int64_t> odd = labels_of(*numbered(kN).shard(2, 1)->shuffle(kN, 1));
  both.insert(both.end(), odd.begin(), odd.end());
  EXPECT_TRUE(is_permutation_of_range(both, kN));
}

TEST(ShuffleTest, BadBufferSizeIsAnInvalidArgument) {
  StatusOr<Dataset> ds = numbered(3).shuffle(0, 1);
  ASSERT_FALSE(ds.ok());
  EXPECT_EQ(ds.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(ds.status().message(), HasSubstr("buffer_size must be >= 1, got 0"));
}

// What a resumed fit relies on: the counters of every shuffle in a
// pipeline read back and set on a pipeline built alike (in a new process),
// which then gives the order the original's next iteration would have.
TEST(ShuffleTest, IterationStateCarriesTheNextOrderToAPipelineBuiltAlike) {
  auto build = [] { return *numbered(kN).shuffle(kN, 5)->batch(10)->shuffle(4, 9)->prefetch(2); };
  const Dataset original = build();
  EXPECT_EQ(original.iteration_state(), (std::vector<uint64_t>{0, 0}));
  labels_of(original);
  labels_of(original);
  const std::vector<uint64_t> state = original.iteration_state();
  EXPECT_EQ(state, (std::vector<uint64_t>{2, 2}));  // outer shuffle first
  const std::vector<int64_t> third = labels_of(original);

  const Dataset rebuilt = build();
  EXPECT_NE(labels_of(rebuilt), third);  // its own first iteration
  ASSERT_TRUE(rebuilt.restore_iteration_state(state).ok());
  EXPECT_EQ(labels_of(rebuilt), third);
  EXPECT_EQ(rebuilt.iteration_state(), (std::vector<uint64_t>{3, 3}));
}

TEST(ShuffleTest, AStateOfAnotherPipelineIsRefusedAndChangesNothing) {
  const Dataset ds = *numbered(kN).shuffle(kN, 5);
  const std::vector<uint64_t> two{4, 4};
  const Status s = ds.restore_iteration_state(two);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("2 shuffle counter(s) but this pipeline has 1"));
  EXPECT_EQ(ds.iteration_state(), (std::vector<uint64_t>{0}));
  EXPECT_TRUE(numbered(kN).iteration_state().empty());  // no shuffle, no state
}

}  // namespace
}  // namespace strata
