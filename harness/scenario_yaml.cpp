#include "harness/scenario_yaml.h"

#include <cstdio>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "harness/scenario.h"
#include "harness/scenario_parser.h"
#include "sim/assert.h"

namespace harness::scenario_yaml {

namespace {

// What a node is, for "expected X, got Y" messages.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return shown(node.Scalar());
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  ELECTSIM_UNREACHABLE();
}

// Optimal string alignment distance (Levenshtein plus adjacent transpositions, the common typo).
// Words here are keys and names of a few dozen characters, so the quadratic table is cheap.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); i++) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); j++) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); i++) {
    for (std::size_t j = 1; j <= b.size(); j++) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The shortest fixed-notation text that reads back as the same double ("0.5", "100000").
std::string format_number(double value) {
  // Fixed notation (100000, not 1e+05); a denormal needs about 330 characters of it.
  char buffer[512];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  ELECTSIM_ASSERT(error == std::errc{});
  return std::string(buffer, end);
}

const YAML::Node& scalar(const Source& source, const Field& field, std::string_view expected) {
  if (!field.value.IsScalar()) {
    source.fail(field.mark(), field.path + ": expected " + std::string(expected) + ", got " + describe(field.value));
  }
  return field.value;
}

}  // namespace

void Source::fail(const YAML::Mark& mark, const std::string& message) const {
  // A node built by yaml-cpp always has a mark; a null one would mean a node we made ourselves.
  ELECTSIM_ASSERT(!mark.is_null());
  throw ScenarioError(file_, mark.line + 1, mark.column + 1, message);
}

YAML::Mark Field::mark() const {
  if (value.IsNull() || value.Mark().is_null()) return key.Mark();
  return value.Mark();
}

MapReader::MapReader(const Source& source, const YAML::Node& node, std::string path,
                     std::span<const std::string_view> allowed_keys)
    : source_(source), node_(node), mark_(node.Mark()), path_(std::move(path)) {
  if (!node_.IsMap() && !node_.IsNull()) {
    std::string what = path_.empty() ? "a scenario" : path_;
    source_.fail(node_.Mark(), what + " must be a mapping of keys to values, got " + describe(node_));
  }
  read(allowed_keys);
}

MapReader::MapReader(const Source& source, const Field& field, std::span<const std::string_view> allowed_keys)
    : source_(source), node_(field.value), mark_(field.mark()), path_(field.path) {
  if (!node_.IsMap() && !node_.IsNull()) {
    source_.fail(field.mark(), path_ + " must be a mapping of keys to values, got " + describe(node_));
  }
  read(allowed_keys);
}

void MapReader::read(std::span<const std::string_view> allowed_keys) {
  if (node_.IsNull()) return;
  std::string in = path_.empty() ? "" : " in " + path_;
  for (const auto& pair : node_) {
    const YAML::Node& key = pair.first;
    if (!key.IsScalar()) source_.fail(key.Mark(), "a key must be a name, got " + describe(key) + in);
    const std::string& name = key.Scalar();
    if (std::find(allowed_keys.begin(), allowed_keys.end(), name) == allowed_keys.end()) {
      std::string hint = did_you_mean(name, allowed_keys);
      if (hint.empty()) hint = "; expected " + one_of(allowed_keys);
      source_.fail(key.Mark(), "unknown key " + shown(name) + in + hint);
    }
    // yaml-cpp keeps both copies of a repeated key and find() would silently take the first.
    if (const Field* first = find(name)) {
      source_.fail(key.Mark(), "duplicate key " + shown(name) + in + " (first at line " +
                                   std::to_string(first->key.Mark().line + 1) + ")");
    }
    fields_.push_back(Field{name, path_.empty() ? name : path_ + "." + name, key, pair.second});
  }
}

const Field* MapReader::find(std::string_view key) const {
  for (const Field& field : fields_) {
    if (field.name == key) return &field;
  }
  return nullptr;
}

const Field& MapReader::require(std::string_view key) const {
  if (const Field* field = find(key)) return *field;
  std::string in = path_.empty() ? "" : " in " + path_;
  source_.fail(mark_, "missing key '" + std::string(key) + "'" + in);
}

std::string shown(std::string_view text) {
  constexpr std::size_t shown_max = 60;
  std::string result = "'";
  for (std::size_t i = 0; i < text.size(); i++) {
    if (i == shown_max) return result + "...'";
    char c = text[i];
    if (c == '\n') {
      result += "\\n";
    } else if (c == '\t') {
      result += "\\t";
    } else if (static_cast<unsigned char>(c) < ' ') {
      result += '?';
    } else {
      result += c;
    }
  }
  return result + "'";
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  // Close enough to be a typo: one edit for short words, about one in three for longer ones.
  std::size_t best_distance = std::max<std::size_t>(1, word.size() / 3) + 1;
  std::string_view best;
  for (std::string_view candidate : candidates) {
    std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  if (best.empty()) return "";
  return " (did you mean '" + std::string(best) + "'?)";
}

std::string one_of(std::span<const std::string_view> candidates) {
  std::string list;
  for (std::size_t i = 0; i < candidates.size(); i++) {
    if (i > 0) list += i + 1 == candidates.size() ? " or " : ", ";
    list += candidates[i];
  }
  return list;
}

std::optional<std::uint64_t> parse_unsigned_text(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    return std::nullopt;  // YAML 1.1 reads 010 as octal, YAML 1.2 as ten: refuse the ambiguity
  }
  if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_integer_text(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  std::optional<std::uint64_t> magnitude = parse_unsigned_text(text);
  if (!magnitude) return std::nullopt;
  constexpr auto int64_max = static_cast<std::uint64_t>(INT64_MAX);
  if (negative) {
    if (*magnitude > int64_max + 1) return std::nullopt;
    return static_cast<std::int64_t>(0 - *magnitude);  // two's complement: also right for INT64_MIN
  }
  if (*magnitude > int64_max) return std::nullopt;
  return static_cast<std::int64_t>(*magnitude);
}

std::string text(const Source& source, const Field& field) {
  const std::string& value = scalar(source, field, "a value").Scalar();
  // A name or description reaches terminals, file names and the trace: a control character there
  // (ESC starts an escape sequence, NUL ends a C string) is refused, not printed raw. Tab and line
  // breaks are text.
  for (std::size_t at = 0; at < value.size(); at++) {
    auto c = static_cast<unsigned char>(value[at]);
    if ((c < ' ' && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", c);
      source.fail(field.mark(), field.path + " holds the control character " + code + " (character " + std::to_string(at + 1) +
                                    "): names and descriptions are printable text");
    }
  }
  return value;
}

std::string nonempty_text(const Source& source, const Field& field) {
  std::string value = text(source, field);
  if (value.empty()) source.fail(field.mark(), field.path + " must not be empty");
  return value;
}

sim::Duration duration(const Source& source, const Field& field) {
  const std::string& value = scalar(source, field, "a duration").Scalar();
  std::optional<sim::Duration> parsed = sim::parse_duration(value);
  if (!parsed) {
    std::string message = "bad duration " + shown(value) + ": expected a number followed by ns, us, ms, s, m or h";
    if (!value.empty() && value[0] == '-') message += " (durations cannot be negative)";
    if (parse_integer_text(value)) message += " (a bare number has no unit: write " + value + "s or " + value + "ms)";
    source.fail(field.mark(), message);
  }
  if (*parsed > duration_max) {
    source.fail(field.mark(), field.path + " is " + sim::format_duration(*parsed) + ", longer than the limit of " +
                                  sim::format_duration(duration_max) + " (24h)");
  }
  return *parsed;
}

sim::Duration positive_duration(const Source& source, const Field& field) {
  sim::Duration value = duration(source, field);
  if (value <= sim::Duration::zero()) source.fail(field.mark(), field.path + " must be longer than 0s");
  return value;
}

sim::Duration setting_duration(const Source& source, const Field& field) {
  sim::Duration value = duration(source, field);
  if (value < std::chrono::milliseconds(1)) {
    source.fail(field.mark(), field.path + " must be at least 1ms: the real setting is whole milliseconds at its finest");
  }
  return value;
}

std::int64_t integer(const Source& source, const Field& field, std::int64_t min, std::int64_t max) {
  ELECTSIM_ASSERT(min <= max);
  const std::string& value = scalar(source, field, "a whole number").Scalar();
  std::optional<std::int64_t> parsed = parse_integer_text(value);
  if (!parsed) {
    std::string message = "bad number " + shown(value) + " for " + field.path + ": expected a whole number";
    if (value.size() > 1 && value[0] == '0' && value[1] >= '0' && value[1] <= '9') {
      message += " without leading zeros (YAML 1.1 would read it as octal)";
    }
    source.fail(field.mark(), message);
  }
  if (*parsed < min || *parsed > max) {
    source.fail(field.mark(), field.path + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                                  ", got " + value);
  }
  return *parsed;
}

std::uint64_t unsigned_integer(const Source& source, const Field& field) {
  const std::string& value = scalar(source, field, "a whole number").Scalar();
  std::optional<std::uint64_t> parsed = parse_unsigned_text(value);
  if (!parsed) {
    source.fail(field.mark(), "bad number " + shown(value) + " for " + field.path +
                                  ": expected a whole number from 0 to 18446744073709551615");
  }
  return *parsed;
}

double number(const Source& source, const Field& field, double min, double max) {
  ELECTSIM_ASSERT(min <= max);
  const std::string& value = scalar(source, field, "a number").Scalar();
  double parsed = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  // from_chars also reads "inf" and "nan", which are no rate.
  if (value.empty() || error != std::errc{} || end != value.data() + value.size() || !std::isfinite(parsed)) {
    source.fail(field.mark(),
                "bad number " + shown(value) + " for " + field.path + ": expected a number such as 2 or 0.5");
  }
  if (parsed < min || parsed > max) {
    source.fail(field.mark(), field.path + " must be between " + format_number(min) + " and " + format_number(max) +
                                  ", got " + value);
  }
  return parsed;
}

bool boolean(const Source& source, const Field& field) {
  const std::string& value = scalar(source, field, "true or false").Scalar();
  // YAML 1.2's core schema; yes/no/on/off (YAML 1.1) mean different things to different tools.
  if (value == "true" || value == "True" || value == "TRUE") return true;
  if (value == "false" || value == "False" || value == "FALSE") return false;
  source.fail(field.mark(), "bad value " + shown(value) + " for " + field.path + ": expected true or false");
}

YAML::Node sequence(const Source& source, const Field& field, std::size_t size_max) {
  if (field.value.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
  if (!field.value.IsSequence()) {
    source.fail(field.mark(), field.path + " must be a list, got " + describe(field.value));
  }
  if (field.value.size() > size_max) {
    source.fail(field.mark(), field.path + " has " + std::to_string(field.value.size()) + " items, more than the " +
                                  std::to_string(size_max) + " allowed");
  }
  return field.value;
}

Name item_name(const Source& source, const YAML::Node& item, std::string_view what) {
  if (!item.IsScalar()) source.fail(item.Mark(), "expected " + std::string(what) + ", got " + describe(item));
  if (item.Scalar().empty()) source.fail(item.Mark(), "expected " + std::string(what) + ", got an empty string");
  return Name{item.Scalar(), item.Mark()};
}

std::vector<Name> unique_names(const Source& source, const Field& field, std::size_t size_max) {
  YAML::Node items = sequence(source, field, size_max);
  std::vector<Name> names;
  for (const YAML::Node& item : items) {
    Name name = item_name(source, item, "a name");
    for (const Name& earlier : names) {
      if (earlier.text == name.text) {
        source.fail(name.mark, shown(name.text) + " is listed twice in " + field.path + " (first at line " +
                                   std::to_string(earlier.mark.line + 1) + ")");
      }
    }
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace harness::scenario_yaml
