// The two pieces of Java integer arithmetic that ElasticJob's name-based strategies depend on,
// reproduced bit for bit: String.hashCode() and Math.abs(int).
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace elasticjob {

// Java's int is 32 bits; the strategies use C++ int for items and counts as the Java code does.
static_assert(sizeof(int) == sizeof(std::int32_t));

// java.lang.String.hashCode() of the string whose UTF-8 encoding is `utf8`:
// s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in 32-bit two's complement arithmetic that
// wraps (so "polygenelubricants" hashes to Integer.MIN_VALUE). Characters outside the Basic
// Multilingual Plane count as their two surrogates, as in Java. Malformed UTF-8 decodes as
// new String(bytes, UTF_8) does on JDK 17: each malformed sequence becomes one U+FFFD.
std::int32_t javaStringHashCode(std::string_view utf8);

// java.lang.Math.abs(int): Math.abs(Integer.MIN_VALUE) is Integer.MIN_VALUE itself (the negation
// overflows), which is why RoundRobinByNameJobShardingStrategy can compute a negative offset.
constexpr std::int32_t javaMathAbs(std::int32_t value) {
  if (value == std::numeric_limits<std::int32_t>::min()) return value;
  return value < 0 ? -value : value;
}

static_assert(javaMathAbs(std::numeric_limits<std::int32_t>::min()) == std::numeric_limits<std::int32_t>::min());
static_assert(javaMathAbs(-7) == 7 && javaMathAbs(7) == 7);
// Java's % truncates toward zero, as C++'s does since C++11: the sign follows the dividend.
static_assert(std::numeric_limits<std::int32_t>::min() % 3 == -2);

}  // namespace elasticjob
