#include "metrics/histogram.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace vedette::metrics {
namespace {

TEST(HistogramTest, BucketsAreCumulativeAndUpperBoundsInclusive) {
  Histogram h(Writers::any, {0.001, 0.01, 0.1});
  h.observe(0.0005);
  h.observe(0.001);  // on the bound: in it (Prometheus' le)
  h.observe(0.0011);
  h.observe(0.05);
  h.observe(5);  // above every bound: +Inf only
  const HistogramValues v = h.values();
  EXPECT_EQ(v.bounds, (std::vector<double>{0.001, 0.01, 0.1}));
  EXPECT_EQ(v.buckets, (std::vector<std::uint64_t>{2, 3, 4}));
  EXPECT_EQ(v.count, 5u);
  EXPECT_DOUBLE_EQ(v.sum, 0.0005 + 0.001 + 0.0011 + 0.05 + 5);
}

TEST(HistogramTest, AnOwnedOneCountsAsASharedOne) {
  Histogram owned(Writers::one, {0.01, 1});
  for (int i = 0; i < 1000; ++i) owned.observe(i % 3 == 0 ? 0.005 : 0.5);
  const HistogramValues v = owned.values();
  EXPECT_EQ(v.buckets, (std::vector<std::uint64_t>{334, 1000}));
  EXPECT_EQ(v.count, 1000u);
  EXPECT_DOUBLE_EQ(v.sum, 334 * 0.005 + 666 * 0.5);
}

TEST(CounterTest, OwnedAndSharedCountersAdd) {
  Counter owned(Writers::one), shared;
  owned.add();
  owned.add(4);
  shared.add(2);
  EXPECT_EQ(owned.value(), 5u);
  EXPECT_EQ(shared.value(), 2u);
}

TEST(HistogramTest, NegativeObservationsCountAsZero) {
  Histogram h(Writers::one, {0.5});
  h.observe(-3);
  h.observe_us(-7);
  const HistogramValues v = h.values();
  EXPECT_EQ(v.buckets, (std::vector<std::uint64_t>{2}));
  EXPECT_EQ(v.count, 2u);
  EXPECT_EQ(v.sum, 0);
}

TEST(HistogramTest, AnEmptyOneHasOnlyItsInfBucket) {
  Histogram h(Writers::any, {});
  h.observe(1);
  const HistogramValues v = h.values();
  EXPECT_TRUE(v.bounds.empty());
  EXPECT_EQ(v.count, 1u);
}

TEST(HistogramTest, ThreadsObservingTogetherLoseNothing) {
  Histogram h(Writers::any, {0.001, 1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 10000; ++i) h.observe_us(t % 2 == 0 ? 500 : 2000);
    });
  for (std::thread& t : threads) t.join();
  const HistogramValues v = h.values();
  EXPECT_EQ(v.buckets, (std::vector<std::uint64_t>{20000, 40000}));
  EXPECT_EQ(v.count, 40000u);
  EXPECT_DOUBLE_EQ(v.sum, 20000 * 0.0005 + 20000 * 0.002);
}

}  // namespace
}  // namespace vedette::metrics
