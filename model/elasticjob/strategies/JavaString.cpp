#include "model/elasticjob/strategies/JavaString.h"

#include "sim/assert.h"

namespace elasticjob {

namespace {

constexpr std::uint32_t replacement_character = 0xFFFD;

bool isContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// Decodes one code point starting at utf8[position] and advances `position`. Malformed input gives
// U+FFFD after consuming what java.lang.String(byte[], UTF_8) consumes (checked on JDK 17): the
// maximal ill-formed subpart (Unicode's "substitution of maximal subparts"), except that a complete
// three-byte encoding of a surrogate (ED A0..BF xx) is one malformed sequence of three bytes.
std::uint32_t decodeCodePoint(std::string_view utf8, std::size_t& position) {
  ELECTSIM_ASSERT(position < utf8.size());
  const auto lead = static_cast<unsigned char>(utf8[position]);
  position++;
  if (lead < 0x80) return lead;
  std::size_t length = 0;
  std::uint32_t codePoint = 0;
  unsigned char secondLow = 0x80;
  unsigned char secondHigh = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, codePoint = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, codePoint = lead & 0x0F;
    if (lead == 0xE0) secondLow = 0xA0;   // no overlong forms
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, codePoint = lead & 0x07;
    if (lead == 0xF0) secondLow = 0x90;   // no overlong forms
    if (lead == 0xF4) secondHigh = 0x8F;  // nothing above U+10FFFF
  } else {
    return replacement_character;  // a stray continuation byte or a lead that is never valid
  }
  for (std::size_t k = 1; k < length; k++) {
    if (position >= utf8.size()) return replacement_character;
    const auto byte = static_cast<unsigned char>(utf8[position]);
    const bool inRange = k == 1 ? (byte >= secondLow && byte <= secondHigh) : isContinuation(byte);
    if (!inRange) return replacement_character;  // the offending byte starts the next sequence
    codePoint = (codePoint << 6) | (byte & 0x3F);
    position++;
  }
  ELECTSIM_ASSERT(codePoint <= 0x10FFFF);
  if (codePoint >= 0xD800 && codePoint <= 0xDFFF) return replacement_character;  // an encoded surrogate
  return codePoint;
}

}  // namespace

std::int32_t javaStringHashCode(std::string_view utf8) {
  // Unsigned arithmetic wraps modulo 2^32 without undefined behaviour; converting back to int32_t is
  // modular in C++20, which gives exactly Java's overflowing int.
  std::uint32_t hash = 0;
  std::size_t position = 0;
  while (position < utf8.size()) {
    const std::size_t before = position;
    const std::uint32_t codePoint = decodeCodePoint(utf8, position);
    ELECTSIM_ASSERT(position > before);
    if (codePoint < 0x10000) {
      hash = 31 * hash + codePoint;
    } else {
      const std::uint32_t offset = codePoint - 0x10000;
      hash = 31 * hash + (0xD800 + (offset >> 10));    // high surrogate
      hash = 31 * hash + (0xDC00 + (offset & 0x3FF));  // low surrogate
    }
  }
  return static_cast<std::int32_t>(hash);
}

}  // namespace elasticjob
