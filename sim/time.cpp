#include "sim/time.h"

#include <array>
#include <charconv>
#include <cstdlib>

namespace sim {

namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t nanos;
};

// Longest suffixes first so "ms" is not read as "m" followed by garbage.
constexpr std::array<Unit, 6> units_by_suffix{{
    {"ns", 1},
    {"us", 1'000},
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
}};

std::string trim_fraction(std::int64_t whole, std::int64_t fraction, int digits) {
  std::string text = std::to_string(whole);
  if (fraction == 0) return text;
  std::string frac = std::to_string(fraction);
  frac.insert(0, static_cast<std::size_t>(digits) - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return text + "." + frac;
}

}  // namespace

std::string format_duration(Duration d) {
  std::int64_t ns = d.count();
  std::string sign;
  if (ns < 0) {
    sign = "-";
    ns = -ns;
  }
  if (ns == 0) return "0s";
  if (ns >= 1'000'000'000) return sign + trim_fraction(ns / 1'000'000'000, ns % 1'000'000'000, 9) + "s";
  if (ns >= 1'000'000) return sign + trim_fraction(ns / 1'000'000, ns % 1'000'000, 6) + "ms";
  if (ns >= 1'000) return sign + trim_fraction(ns / 1'000, ns % 1'000, 3) + "us";
  return sign + std::to_string(ns) + "ns";
}

std::optional<Duration> parse_duration(std::string_view text) {
  std::size_t digits_end = 0;
  while (digits_end < text.size() && ((text[digits_end] >= '0' && text[digits_end] <= '9') || text[digits_end] == '.')) {
    digits_end++;
  }
  std::string_view number = text.substr(0, digits_end);
  std::string_view suffix = text.substr(digits_end);
  if (number.empty() || suffix.empty()) return std::nullopt;

  std::int64_t unit_nanos = 0;
  for (const Unit& unit : units_by_suffix) {
    if (unit.suffix == suffix) unit_nanos = unit.nanos;
  }
  if (unit_nanos == 0) return std::nullopt;

  std::size_t dot = number.find('.');
  std::string_view whole_text = number.substr(0, dot);
  std::string_view fraction_text = dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
  if (whole_text.empty()) return std::nullopt;
  if (dot != std::string_view::npos && (fraction_text.empty() || fraction_text.find('.') != std::string_view::npos)) {
    return std::nullopt;
  }

  std::int64_t whole = 0;
  auto [end, error] = std::from_chars(whole_text.data(), whole_text.data() + whole_text.size(), whole);
  if (error != std::errc{} || end != whole_text.data() + whole_text.size()) return std::nullopt;
  if (whole > INT64_MAX / unit_nanos) return std::nullopt;
  std::int64_t total = whole * unit_nanos;

  // The fraction must come out as a whole number of nanoseconds: "1.5s" yes, "1.5ns" no.
  std::int64_t scale = unit_nanos;
  for (char digit : fraction_text) {
    if (scale % 10 != 0) return std::nullopt;
    scale /= 10;
    total += (digit - '0') * scale;
    if (total < 0) return std::nullopt;
  }
  return Duration{total};
}

}  // namespace sim
