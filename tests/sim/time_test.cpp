#include <gtest/gtest.h>

#include "sim/time.h"

namespace {

using namespace sim;

TEST(Time, LiteralsAreIntegerNanoseconds) {
  EXPECT_EQ(nanos(Duration(200ms)), 200'000'000);
  EXPECT_EQ(nanos(Duration(6s)), 6'000'000'000);
  EXPECT_EQ(nanos(epoch + 1s), 1'000'000'000);
  static_assert(std::is_same_v<Duration::rep, std::int64_t>);
}

TEST(Time, FormatsInTheLargestReadableUnit) {
  EXPECT_EQ(format_duration(0s), "0s");
  EXPECT_EQ(format_duration(200ms), "200ms");
  EXPECT_EQ(format_duration(31204ms), "31.204s");
  EXPECT_EQ(format_duration(1500us), "1.5ms");
  EXPECT_EQ(format_duration(7ns), "7ns");
  EXPECT_EQ(format_duration(-2s), "-2s");
  EXPECT_EQ(format_instant(epoch + 90s), "90s");
}

TEST(Time, ParsesEveryUnit) {
  EXPECT_EQ(parse_duration("10ns"), Duration(10ns));
  EXPECT_EQ(parse_duration("500us"), Duration(500us));
  EXPECT_EQ(parse_duration("200ms"), Duration(200ms));
  EXPECT_EQ(parse_duration("6s"), Duration(6s));
  EXPECT_EQ(parse_duration("1m"), Duration(60s));
  EXPECT_EQ(parse_duration("1h"), Duration(3600s));
  EXPECT_EQ(parse_duration("1.5s"), Duration(1500ms));
  EXPECT_EQ(parse_duration("0.25ms"), Duration(250us));
}

TEST(Time, RejectsMalformedDurations) {
  for (const char* text : {"", "s", "10", "10x", "-1s", "1.5ns", "1..5s", "1.s", ".5s", "10 s", "1e3ms", "99999999999999999999s"}) {
    EXPECT_FALSE(parse_duration(text).has_value()) << text;
  }
}

TEST(Time, ParseAndFormatRoundTrip) {
  for (Duration d : {Duration(1ns), Duration(999us), Duration(31204ms), Duration(3600s), Duration(1234567891ns)}) {
    EXPECT_EQ(parse_duration(format_duration(d)), d) << format_duration(d);
  }
}

}  // namespace
