// Java's String.hashCode() and Math.abs(int), checked against values printed by a JDK 17.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "model/elasticjob/strategies/JavaString.h"

namespace {

using elasticjob::javaMathAbs;
using elasticjob::javaStringHashCode;

constexpr std::int32_t integer_min_value = std::numeric_limits<std::int32_t>::min();

std::string fromHex(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

TEST(JavaString, HashCodeOfAsciiStrings) {
  EXPECT_EQ(javaStringHashCode(""), 0);
  EXPECT_EQ(javaStringHashCode("a"), 97);
  EXPECT_EQ(javaStringHashCode("0"), 48);
  EXPECT_EQ(javaStringHashCode("test_job"), -1146456432);
  EXPECT_EQ(javaStringHashCode("myJob"), 104343153);
  EXPECT_EQ(javaStringHashCode("javaSimpleJob"), -694093655);
  EXPECT_EQ(javaStringHashCode("simple"), -902286926);
}

TEST(JavaString, HashCodeWrapsToIntegerMinValue) {
  EXPECT_EQ(javaStringHashCode("polygenelubricants"), integer_min_value);
  EXPECT_EQ(javaStringHashCode("GydZG_"), integer_min_value);
  EXPECT_EQ(javaStringHashCode("DESIGNING WORKHOUSES"), integer_min_value);
}

TEST(JavaString, HashCodeCountsUtf16CodeUnits) {
  EXPECT_EQ(javaStringHashCode("\xC3\xAB"), 235);                    // "ë", U+00EB
  EXPECT_EQ(javaStringHashCode("\xE4\xBD\x9C\xE4\xB8\x9A"), 649790);  // "作业"
  EXPECT_EQ(javaStringHashCode("job-\xF0\x9F\x98\x80"), -1153030797);  // an emoji: two surrogates
}

TEST(JavaString, MalformedUtf8DecodesAsJdk17Does) {
  // Pairs printed by new String(bytes, StandardCharsets.UTF_8).hashCode() on OpenJDK 17.0.15.
  const std::pair<const char*, std::int32_t> cases[] = {
      {"ff", 65533},             {"61e08062", 67898561}, {"e282", 65533},       {"f09f98", 65533},
      {"eda080", 65533},         {"c0af", 2097056},      {"f4908080", 2017367872}, {"e2822061", 62978302},
      {"f09f9880", 1772899},     {"80bf", 2097056},      {"f09f", 65533},
  };
  for (const auto& [hex, hash] : cases) EXPECT_EQ(javaStringHashCode(fromHex(hex)), hash) << hex;
}

TEST(JavaString, MathAbsOfMinValueIsMinValue) {
  EXPECT_EQ(javaMathAbs(integer_min_value), integer_min_value);
  EXPECT_EQ(javaMathAbs(integer_min_value + 1), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(javaMathAbs(-5), 5);
  EXPECT_EQ(javaMathAbs(0), 0);
  // And Java's remainder keeps the dividend's sign.
  EXPECT_EQ(javaMathAbs(integer_min_value) % 3, -2);
  EXPECT_EQ(javaMathAbs(integer_min_value) % 4, 0);
}

}  // namespace
