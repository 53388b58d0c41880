// prefetch(): changes when elements are made, never which: the same
// sequence and errors as without it. And it never hangs or leaks its
// thread: an iterator destroyed mid-stream, over an infinite, slow or
// blocked input, returns promptly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/data/dataset.h"
#include "dataset_test_util.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_data::drain;
using testing_data::labels_of;
using testing_data::numbered;

// Generous: these bound a hang, not a speed, on a busy 2-core machine.
constexpr auto kPrompt = 2s;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Dataset pipeline() { return *numbered(50).shuffle(20, 3)->repeat(3)->batch(7); }

TEST(PrefetchTest, YieldsExactlyWhatThePipelineWithoutItYields) {
  StatusOr<std::vector<Element>> want = drain(pipeline());
  ASSERT_TRUE(want.ok()) << want.status();
  for (int64_t buffer : {1, 2, 8, 1000}) {
    StatusOr<Dataset> ds = pipeline().prefetch(buffer);
    ASSERT_TRUE(ds.ok());
    EXPECT_EQ(ds->cardinality(), pipeline().cardinality());
    StatusOr<std::vector<Element>> got = drain(*ds);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), want->size()) << "buffer " << buffer;
    for (size_t i = 0; i < want->size(); ++i) {
      for (size_t c = 0; c < (*want)[i].size(); ++c) {
        EXPECT_EQ(max_abs_difference((*got)[i][c], (*want)[i][c]), 0.0)
            << "buffer " << buffer << " element " << i << " component " << c;
      }
    }
  }
}

TEST(PrefetchTest, DestroyingAnIteratorMidStreamStopsItsThread) {
  const Dataset forever = *numbered(10).repeat()->prefetch(4);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    auto it = forever.make_iterator();
    if (i % 2 == 0) {
      ASSERT_TRUE(it->next().ok());  // the other half are never asked
    }
  }
  // Nested: a prefetch feeding a prefetch, each with a full queue.
  const Dataset nested = *numbered(10).repeat()->prefetch(2)->batch(3)->prefetch(2);
  {
    auto it = nested.make_iterator();
    EXPECT_THAT(labels_of(*drain(*it, 2)), ElementsAre(0, 1, 2, 3, 4, 5));
    std::this_thread::sleep_for(20ms);  // let both queues fill and both threads wait
  }
  EXPECT_LT(seconds_since(start), std::chrono::duration<double>(kPrompt).count());
}

TEST(PrefetchTest, DestroyingWhileTheInputIsSlowWaitsOnlyForTheElementInHand) {
  const Dataset slow = *testing_data::slow_counter(30ms).prefetch(3);
  auto it = slow.make_iterator();
  EXPECT_THAT(labels_of(*drain(*it, 2)), ElementsAre(0, 1));
  const auto start = std::chrono::steady_clock::now();
  it.reset();
  EXPECT_LT(seconds_since(start), 0.5);
}

TEST(PrefetchTest, ABlockedInputIsCancelledThroughEveryStage) {
  // The source blocks until cancelled; cancel reaches it through
  // prefetch, batch and repeat, so neither cancel() nor the destructor
  // waits forever.
  const Dataset blocked =
      *Dataset::from_generator([] { return std::make_unique<testing_data::BlockingIterator>(); })
           .repeat()
           ->batch(2)
           ->prefetch(1);
  auto it = blocked.make_iterator();
  StatusOr<std::optional<Element>> result = std::optional<Element>();
  std::thread consumer([&] { result = it->next(); });
  std::this_thread::sleep_for(50ms);
  const auto start = std::chrono::steady_clock::now();
  it->cancel();
  consumer.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kAborted);
  it.reset();
  EXPECT_LT(seconds_since(start), std::chrono::duration<double>(kPrompt).count());

  // Destroying without cancelling first is just as prompt.
  auto again = blocked.make_iterator();
  std::this_thread::sleep_for(20ms);
  const auto start2 = std::chrono::steady_clock::now();
  again.reset();
  EXPECT_LT(seconds_since(start2), std::chrono::duration<double>(kPrompt).count());
}

TEST(PrefetchTest, AnErrorArrivesAfterTheElementsBeforeIt) {
  const Dataset ds = *testing_data::failing_after(3, DataLossError("bad sector")).prefetch(8);
  auto it = ds.make_iterator();
  for (int64_t i = 0; i < 3; ++i) {
    StatusOr<std::optional<Element>> next = it->next();
    ASSERT_TRUE(next.ok()) << next.status();
    ASSERT_TRUE(next->has_value());
    EXPECT_EQ((**next)[0].item(), static_cast<float>(i));
  }
  for (int repeat = 0; repeat < 2; ++repeat) {
    StatusOr<std::optional<Element>> next = it->next();
    ASSERT_FALSE(next.ok());
    EXPECT_EQ(next.status().code(), Code::kDataLoss);
    EXPECT_EQ(next.status().message(), "bad sector");
  }
}

TEST(PrefetchTest, AnExceptionInTheInputBecomesAnErrorNotATerminate) {
  const Dataset throwing = Dataset::from_generator([] {
    return std::make_unique<testing_data::ScriptedIterator>(
        [](int64_t i) -> StatusOr<std::optional<Element>> {
          if (i == 2) throw std::runtime_error("generator exploded");
          return std::optional<Element>(testing_data::scalar_element(i));
        });
  });
  StatusOr<std::vector<Element>> all = drain(*throwing.prefetch(2));
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), Code::kInternal);
  EXPECT_THAT(all.status().message(), HasSubstr("generator exploded"));
}

TEST(PrefetchTest, IteratorsOnSeveralThreadsEachSeeTheWholeSequence) {
  const Dataset ds = *numbered(200).prefetch(3)->batch(10)->prefetch(2);
  std::vector<std::vector<int64_t>> seen(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] { seen[t] = labels_of(ds); });
  }
  for (std::thread& t : threads) t.join();
  for (const std::vector<int64_t>& s : seen) EXPECT_EQ(s, labels_of(numbered(200)));
}

TEST(PrefetchTest, BadBufferSizeIsAnInvalidArgument) {
  StatusOr<Dataset> ds = numbered(3).prefetch(0);
  ASSERT_FALSE(ds.ok());
  EXPECT_THAT(ds.status().message(), HasSubstr("buffer_size must be >= 1, got 0"));
}

}  // namespace
}  // namespace strata
