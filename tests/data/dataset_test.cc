// Dataset: from_arrays, batch, repeat, shard and take, each against what
// tf.data yields for the same pipeline, with cardinality and the argument
// errors; iterators are independent and stay at the end once there.
#include "core/data/dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dataset_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_data::drain;
using testing_data::failing_after;
using testing_data::labels_of;
using testing_data::numbered;

TEST(DatasetTest, FromArraysSlicesRowsOfEveryArray) {
  const Dataset ds = numbered(3);
  EXPECT_EQ(ds.cardinality(), 3);
  StatusOr<std::vector<Element>> all = drain(ds);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  const Element& second = (*all)[1];
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].shape(), (Shape{2}));
  EXPECT_THAT(second[0].values(), ElementsAre(1.0f, 101.0f));
  EXPECT_EQ(second[1].shape(), Shape{});  // a row of a [n] array is a scalar
  EXPECT_EQ(second[1].item(), 1.0f);
}

TEST(DatasetTest, FromArraysRejectsMismatchedFirstDimensions) {
  StatusOr<Dataset> ds = Dataset::from_arrays({Tensor({5, 3}), Tensor({4})});
  ASSERT_FALSE(ds.ok());
  EXPECT_EQ(ds.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(ds.status().message(), HasSubstr("array 1 f32[4] has 4 rows"));
  EXPECT_THAT(ds.status().message(), HasSubstr("array 0 f32[5, 3] has 5"));
  EXPECT_THAT(Dataset::from_arrays({}).status().message(), HasSubstr("no arrays"));
  EXPECT_THAT(Dataset::from_arrays({Tensor::scalar(1)}).status().message(),
              HasSubstr("array 0 is a scalar"));
}

TEST(DatasetTest, BatchKeepsThePartialLastBatchUnlessDropRemainder) {
  StatusOr<Dataset> kept = numbered(10).batch(4);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->cardinality(), 3);
  StatusOr<std::vector<Element>> batches = drain(*kept);
  ASSERT_TRUE(batches.ok()) << batches.status();
  ASSERT_EQ(batches->size(), 3u);
  EXPECT_EQ((*batches)[0][0].shape(), (Shape{4, 2}));
  EXPECT_EQ((*batches)[0][1].shape(), (Shape{4}));
  EXPECT_EQ((*batches)[2][0].shape(), (Shape{2, 2}));
  EXPECT_THAT((*batches)[2][0].values(), ElementsAre(8.0f, 108.0f, 9.0f, 109.0f));
  EXPECT_THAT(labels_of(*batches), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));

  StatusOr<Dataset> dropped = numbered(10).batch(4, /*drop_remainder=*/true);
  EXPECT_EQ(dropped->cardinality(), 2);
  EXPECT_THAT(labels_of(*dropped), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_EQ(numbered(8).batch(4, true)->cardinality(), 2);
  EXPECT_THAT(labels_of(*numbered(3).batch(4, true)), IsEmpty());
}

TEST(DatasetTest, BatchOfElementsWithDifferentShapesIsAnErrorFromNext) {
  const Dataset ragged = Dataset::from_generator([] {
    return std::make_unique<testing_data::ScriptedIterator>(
        [](int64_t i) -> StatusOr<std::optional<Element>> {
          if (i >= 2) return std::optional<Element>();
          return std::optional<Element>(Element{Tensor({i + 1})});
        });
  });
  StatusOr<std::vector<Element>> all = drain(*ragged.batch(2));
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(all.status().message(), HasSubstr("element 1 of the batch is f32[2]"));
  EXPECT_THAT(numbered(3).batch(0).status().message(), HasSubstr("batch_size must be >= 1"));
}

TEST(DatasetTest, RepeatStartsOverFromTheFirstElement) {
  EXPECT_THAT(labels_of(*numbered(3).repeat(3)), ElementsAre(0, 1, 2, 0, 1, 2, 0, 1, 2));
  EXPECT_EQ(numbered(3).repeat(3)->cardinality(), 9);
  EXPECT_THAT(labels_of(*numbered(3).repeat(0)), IsEmpty());
  const Dataset forever = *numbered(3).repeat(-1);
  EXPECT_EQ(forever.cardinality(), Dataset::kInfiniteCardinality);
  EXPECT_THAT(labels_of(*forever.take(7)), ElementsAre(0, 1, 2, 0, 1, 2, 0));
  // Batching across the epoch boundary, as tf.data does after repeat().
  EXPECT_THAT(labels_of(*forever.take(5)->batch(2)), ElementsAre(0, 1, 2, 0, 1));
  EXPECT_THAT(numbered(3).repeat(-2).status().message(), HasSubstr("-1 to repeat forever"));
}

TEST(DatasetTest, RepeatingAnEmptyDatasetForeverEndsInsteadOfSpinning) {
  const Dataset empty = *numbered(3).take(0);
  EXPECT_EQ(empty.repeat()->cardinality(), 0);
  EXPECT_THAT(labels_of(*empty.repeat()), IsEmpty());
}

TEST(DatasetTest, ShardTakesEveryNthElementStartingAtIndex) {
  // tf.data.Dataset.range(10).shard(3, i): [0,3,6,9], [1,4,7], [2,5,8].
  const Dataset ds = numbered(10);
  EXPECT_THAT(labels_of(*ds.shard(3, 0)), ElementsAre(0, 3, 6, 9));
  EXPECT_THAT(labels_of(*ds.shard(3, 1)), ElementsAre(1, 4, 7));
  EXPECT_THAT(labels_of(*ds.shard(3, 2)), ElementsAre(2, 5, 8));
  EXPECT_EQ(ds.shard(3, 0)->cardinality(), 4);
  EXPECT_EQ(ds.shard(3, 2)->cardinality(), 3);
  EXPECT_THAT(labels_of(*ds.shard(1, 0)), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_THAT(labels_of(*numbered(2).shard(4, 3)), IsEmpty());
  EXPECT_EQ(ds.repeat()->shard(2, 1)->cardinality(), Dataset::kInfiniteCardinality);
}

TEST(DatasetTest, ShardRejectsBadArguments) {
  const Dataset ds = numbered(10);
  StatusOr<Dataset> zero = ds.shard(0, 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(zero.status().message(), HasSubstr("num_shards must be >= 1, got 0"));
  EXPECT_THAT(ds.shard(3, 3).status().message(), HasSubstr("index must be in [0, 3), got 3"));
  EXPECT_THAT(ds.shard(3, -1).status().message(), HasSubstr("got -1"));
}

TEST(DatasetTest, TakeStopsAfterCount) {
  EXPECT_THAT(labels_of(*numbered(5).take(2)), ElementsAre(0, 1));
  EXPECT_THAT(labels_of(*numbered(5).take(-1)), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(labels_of(*numbered(5).take(9)), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_EQ(numbered(5).take(9)->cardinality(), 5);
  EXPECT_EQ(numbered(5).repeat()->take(9)->cardinality(), 9);
  EXPECT_EQ(numbered(5).take(-1)->cardinality(), 5);
  EXPECT_FALSE(numbered(5).take(-2).ok());
}

TEST(DatasetTest, CardinalityOfAGeneratorIsWhatItWasGiven) {
  const Dataset unknown = failing_after(3, InternalError("x"));
  EXPECT_EQ(unknown.cardinality(), Dataset::kUnknownCardinality);
  EXPECT_EQ(unknown.batch(2)->cardinality(), Dataset::kUnknownCardinality);
  EXPECT_EQ(unknown.repeat()->cardinality(), Dataset::kUnknownCardinality);
  EXPECT_EQ(unknown.take(4)->cardinality(), Dataset::kUnknownCardinality);
  EXPECT_EQ(unknown.take(0)->cardinality(), 0);
}

TEST(DatasetTest, IteratorsAreIndependentAndStayAtTheEnd) {
  const Dataset ds = *numbered(4).batch(3);
  auto a = ds.make_iterator();
  auto b = ds.make_iterator();
  ASSERT_TRUE(a->next().ok());
  EXPECT_THAT(labels_of(*drain(*b)), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(labels_of(*drain(*a)), ElementsAre(3));
  for (int i = 0; i < 3; ++i) {
    StatusOr<std::optional<Element>> end = a->next();
    ASSERT_TRUE(end.ok());
    EXPECT_FALSE(end->has_value());
  }
}

TEST(DatasetTest, ErrorsFromTheSourcePassThroughEveryTransformation) {
  const Dataset failing = failing_after(3, DataLossError("disk ate it"));
  for (const StatusOr<Dataset>& ds :
       {failing.batch(2), failing.shard(2, 0), failing.take(10), failing.repeat(2),
        failing.shuffle(8, 1)}) {
    ASSERT_TRUE(ds.ok());
    auto it = ds->make_iterator();
    StatusOr<std::vector<Element>> all = drain(*it);
    ASSERT_FALSE(all.ok());
    EXPECT_EQ(all.status().code(), Code::kDataLoss);
    EXPECT_EQ(all.status().message(), "disk ate it");
    EXPECT_FALSE(it->next().ok());  // and again
  }
  StatusOr<std::vector<Element>> some = drain(*failing.take(3));
  ASSERT_TRUE(some.ok()) << "take stops before asking for the failing element";
  EXPECT_EQ(some->size(), 3u);
}

TEST(DatasetTest, AGeneratorWithoutAnIteratorIsAnErrorNotACrash) {
  const Dataset none = Dataset::from_generator([] { return std::unique_ptr<Iterator>(); });
  StatusOr<std::optional<Element>> next = none.make_iterator()->next();
  ASSERT_FALSE(next.ok());
  EXPECT_THAT(next.status().message(), HasSubstr("returned no iterator"));
}

}  // namespace
}  // namespace strata
