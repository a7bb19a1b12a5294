// Strict reading of yaml-cpp nodes for the scenario parser (internal to harness/scenario_parser*.cpp).
//
// yaml-cpp is permissive where a scenario file must not be: it keeps duplicate keys, reads `010` as
// octal, `yes` as true, and its as<T>() reports errors without the key they belong to. These helpers
// check every key against a list, convert scalars with electsim's own rules, and throw ScenarioError
// pointing at the offending key or value.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace harness::scenario_yaml {

// The file errors are reported against.
class Source {
 public:
  explicit Source(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  // Throws ScenarioError at `mark` (yaml-cpp's 0-based line and column become 1-based).
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const;

 private:
  std::string file_;
};

// One key of a mapping and its value.
struct Field {
  std::string name;  // the key
  std::string path;  // dotted, for messages: "zookeeper.servers"
  YAML::Node key;
  YAML::Node value;

  // Where an error about the value points: the value, or its key when the value is empty (yaml-cpp
  // marks an empty value at the next token, which may be lines further down).
  YAML::Mark mark() const;
};

// A mapping whose keys are unique scalars from an allowed list, else a ScenarioError. An empty value
// (`zookeeper:` with nothing under it) reads as an empty mapping, so every key takes its default.
class MapReader {
 public:
  // `path` names the mapping in messages ("zookeeper", "network.latency"); empty for the top level.
  MapReader(const Source& source, const YAML::Node& node, std::string path,
            std::span<const std::string_view> allowed_keys);
  MapReader(const Source& source, const Field& field, std::span<const std::string_view> allowed_keys);
  // The same with a literal key list (used only during construction, so the list may be a temporary).
  MapReader(const Source& source, const YAML::Node& node, std::string path,
            std::initializer_list<std::string_view> allowed_keys)
      : MapReader(source, node, std::move(path), std::span(allowed_keys.begin(), allowed_keys.size())) {}
  MapReader(const Source& source, const Field& field, std::initializer_list<std::string_view> allowed_keys)
      : MapReader(source, field, std::span(allowed_keys.begin(), allowed_keys.size())) {}

  const Field* find(std::string_view key) const;
  // The field, or an error at the mapping saying that `key` is missing.
  const Field& require(std::string_view key) const;
  const std::vector<Field>& fields() const { return fields_; }  // in file order
  const YAML::Node& node() const { return node_; }

 private:
  void read(std::span<const std::string_view> allowed_keys);

  const Source& source_;
  YAML::Node node_;
  YAML::Mark mark_;  // where "missing key" points: the mapping, or its key when the value is empty
  std::string path_;
  std::vector<Field> fields_;
};

// A name and where it was written, for errors found after reading (duplicates, unknown nodes).
struct Name {
  std::string text;
  YAML::Mark mark;
};

// 'text' for a message: control characters escaped, and cut short after 60 characters so a stray
// multi-line value does not flood the terminal.
std::string shown(std::string_view text);
// " (did you mean 'x'?)" when a candidate is within a small edit distance of `word`, else "".
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);
// "a, b or c".
std::string one_of(std::span<const std::string_view> candidates);

// Scalar conversions. Each fails at the field with a message naming field.path where it helps.
std::string text(const Source& source, const Field& field);                 // any single value
std::string nonempty_text(const Source& source, const Field& field);        // ... but not ""
sim::Duration duration(const Source& source, const Field& field);           // 0 <= d <= duration_max
sim::Duration positive_duration(const Source& source, const Field& field);  // 0 < d <= duration_max
// A timeout or an interval of the real systems' configuration: at least 1 ms. ZooKeeper reads
// tickTime and session timeouts as whole milliseconds (int), Elasticsearch's and ElasticJob's
// settings are milliseconds at their finest; below that a timer fires faster than any message
// arrives, and the run is a zero-time storm of events, not a scenario.
sim::Duration setting_duration(const Source& source, const Field& field);
std::int64_t integer(const Source& source, const Field& field, std::int64_t min, std::int64_t max);
std::uint64_t unsigned_integer(const Source& source, const Field& field);  // 0..2^64-1
double number(const Source& source, const Field& field, double min, double max);
bool boolean(const Source& source, const Field& field);

// A list; an empty value is an empty list. At most `size_max` items.
YAML::Node sequence(const Source& source, const Field& field, std::size_t size_max);
// A list of single values: every item a scalar, none repeated, at most `size_max`.
std::vector<Name> unique_names(const Source& source, const Field& field, std::size_t size_max);
// A single value item of a list (`what` names it in messages: "a node name").
Name item_name(const Source& source, const YAML::Node& item, std::string_view what);

// Pure text conversions, shared with the tests' expectations.
std::optional<std::int64_t> parse_integer_text(std::string_view text);    // 12, -3, 0x1F; no leading zeros
std::optional<std::uint64_t> parse_unsigned_text(std::string_view text);  // 12, 0x1F

}  // namespace harness::scenario_yaml
