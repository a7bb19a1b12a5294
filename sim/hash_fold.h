// The byte hash behind the trace hash and the string-keyed hash maps: one multiply-xorshift round
// per 8-byte word, read little-endian, so a text hashes the same on every platform. A 40-byte path
// costs five rounds, against about a hundred instructions in libstdc++'s _Hash_bytes, which was 3%
// of an exploration.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace sim {

inline std::uint64_t hash_fold(std::uint64_t hash, std::uint64_t word) {
  hash ^= word;
  hash *= 0x9e3779b97f4a7c15ULL;
  return hash ^ (hash >> 29);
}

// Eight bytes at a time, little-endian, then the tail: the same value on every platform. On a
// little-endian machine the word is one unaligned load instead of eight byte loads and shifts.
inline std::uint64_t load_little_endian_word(const char* bytes) {
  std::uint64_t word = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&word, bytes, sizeof word);
  } else {
    for (std::size_t i = 0; i < 8; i++) word |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return word;
}

inline std::uint64_t hash_fold_text(std::uint64_t hash, std::string_view text) {
  std::size_t at = 0;
  for (; at + 8 <= text.size(); at += 8) hash = hash_fold(hash, load_little_endian_word(text.data() + at));
  // The last 0..7 bytes, byte i at bits 8(i+1) above the length. A text of 8 bytes or more reads
  // them as the top of its last word (one load, shifted down), not byte by byte.
  std::uint64_t tail = text.size();
  std::size_t rest = text.size() - at;
  if (rest > 0 && text.size() >= 8) {
    std::uint64_t last_word = load_little_endian_word(text.data() + text.size() - 8);
    tail ^= (last_word >> (8 * (8 - rest))) << 8;
  } else {
    for (std::size_t i = 0; i < rest; i++) tail ^= static_cast<std::uint64_t>(static_cast<unsigned char>(text[at + i])) << (8 * (i + 1));
  }
  return hash_fold(hash, tail);
}

}  // namespace sim
