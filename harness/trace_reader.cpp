#include "harness/trace_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace harness {

namespace {

using Json = nlohmann::ordered_json;

std::string error_text(const std::string& file, std::size_t line, std::size_t column, const std::string& message) {
  if (line == 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

// A value quoted in a message: control bytes escaped, cut after 60 bytes.
std::string shown(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < 60; i++) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      static const char digits[] = "0123456789abcdef";
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > 60) out += "...";
  return out + "'";
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 7: syntax error ..."
// without the parts the FILE:LINE:COLUMN prefix already says.
std::string parse_error_message(const nlohmann::json::parse_error& error) {
  std::string what = error.what();
  std::size_t column = what.find("column ");
  std::size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
  std::string message = colon == std::string::npos ? what : what.substr(colon + 2);
  std::string clean;
  for (char c : message) {
    auto byte = static_cast<unsigned char>(c);
    clean += byte < 0x20 || byte == 0x7f ? '?' : c;
  }
  return "not a JSON object: " + clean;
}

// nlohmann's "[json.exception.out_of_range.406] number overflow parsing '1e999'": the number, and
// its column in the line (1 if it cannot be found).
std::string quoted_number(const std::string& what) {
  std::size_t open = what.find('\'');
  std::size_t close = open == std::string::npos ? std::string::npos : what.find('\'', open + 1);
  if (close == std::string::npos) return "?";
  std::string number = what.substr(open + 1, close - open - 1);
  bool plain = std::all_of(number.begin(), number.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == 'e' || c == 'E' || c == '-' || c == '+' || c == '.'; });
  return plain && !number.empty() ? number : "?";
}

std::size_t number_column(std::string_view line, const std::string& what) {
  std::string number = quoted_number(what);
  std::size_t at = number == "?" ? std::string_view::npos : line.find(number);
  return at == std::string_view::npos ? 1 : at + 1;
}

const char* type_word(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a fractional number";
    default: return "not a value";
  }
}

// Where `"key"` first appears in the line (1-based), so an error about a field points near it.
std::size_t column_of_key(std::string_view line, const std::string& key) {
  std::size_t at = line.find("\"" + key + "\"");
  return at == std::string_view::npos ? 1 : at + 1;
}

}  // namespace

TraceError::TraceError(std::string file, std::size_t line, std::size_t column, std::string message)
    : std::runtime_error(error_text(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

std::optional<std::int64_t> TraceRecord::integer(std::string_view key) const {
  auto found = fields.find(std::string(key));
  if (found == fields.end()) return std::nullopt;
  if (found->is_number_integer() && !found->is_number_unsigned()) return found->get<std::int64_t>();
  if (found->is_number_unsigned() && found->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(found->get<std::uint64_t>());
  }
  return std::nullopt;
}

std::optional<std::uint64_t> TraceRecord::unsigned_integer(std::string_view key) const {
  auto found = fields.find(std::string(key));
  if (found == fields.end() || !found->is_number_unsigned()) return std::nullopt;
  return found->get<std::uint64_t>();
}

std::optional<std::string> TraceRecord::text(std::string_view key) const {
  auto found = fields.find(std::string(key));
  if (found == fields.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

std::optional<bool> TraceRecord::boolean(std::string_view key) const {
  auto found = fields.find(std::string(key));
  if (found == fields.end() || !found->is_boolean()) return std::nullopt;
  return found->get<bool>();
}

TraceReader::TraceReader(std::istream& in, std::string file_name_for_messages, TraceReaderLimits limits)
    : in_(in), file_(std::move(file_name_for_messages)), limits_(limits) {
  // One byte more than a line may hold, plus the terminating null getline writes.
  buffer_.resize(limits_.line_bytes_max + 2);
}

std::optional<TraceRecord> TraceReader::next() {
  while (true) {
    if (!in_.good()) return std::nullopt;
    in_.getline(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    auto extracted = static_cast<std::size_t>(in_.gcount());
    if (in_.bad()) throw TraceError(file_, line_ + 1, 1, std::string("cannot read: ") + std::strerror(errno));
    if (in_.fail() && in_.eof() && extracted == 0) return std::nullopt;  // the end, after a newline or none
    line_++;
    bool delimited = !in_.fail() && !in_.eof();
    std::size_t length = delimited ? extracted - 1 : extracted;
    if (in_.fail() || length > limits_.line_bytes_max) {
      throw TraceError(file_, line_, limits_.line_bytes_max + 1,
                       "the line is longer than " + std::to_string(limits_.line_bytes_max) + " bytes, the limit for one event");
    }
    std::string_view text(buffer_.data(), length);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t") == std::string_view::npos) continue;  // a blank line
    return parse_line(text);
  }
}

TraceRecord TraceReader::parse_line(std::string_view text) {
  // Keys of the line's object, for duplicates (nlohmann would keep only one of them).
  std::set<std::string> keys;
  std::optional<std::string> duplicate;
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key && !duplicate) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!keys.insert(key).second) duplicate = key;
    }
    return true;
  };
  Json json;
  try {
    json = Json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::parse_error& error) {
    throw TraceError(file_, line_, std::max<std::size_t>(1, std::min(error.byte, text.size() + 1)), parse_error_message(error));
  } catch (const nlohmann::json::out_of_range& error) {
    // A number too large for a double (`1e999`) is out_of_range 406, not a parse_error, and carries
    // no position (found by fuzz_trace_reader): point at the number, which the message quotes.
    throw TraceError(file_, line_, number_column(text, error.what()), "a number too large for JSON: " + quoted_number(error.what()));
  } catch (const nlohmann::json::exception& error) {
    // Any other complaint of the JSON library is still an error in the line, never a crash.
    throw TraceError(file_, line_, 1, "not a JSON object: " + std::string(error.what()));
  }
  if (!json.is_object()) {
    throw TraceError(file_, line_, 1, std::string("a trace line is a JSON object {\"t\": ..., \"node\": ..., \"kind\": ...}, not ") + type_word(json));
  }
  if (duplicate) throw TraceError(file_, line_, column_of_key(text, *duplicate), "the key " + shown(*duplicate) + " appears twice");

  TraceRecord record;
  record.line = line_;
  auto t = json.find("t");
  if (t == json.end()) throw TraceError(file_, line_, 1, "the event has no \"t\" (its time in nanoseconds)");
  if (!t->is_number_integer() || (!t->is_number_unsigned() && t->get<std::int64_t>() < 0) ||
      (t->is_number_unsigned() && t->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))) {
    throw TraceError(file_, line_, column_of_key(text, "t"),
                     std::string("\"t\" is a time in whole nanoseconds from 0 to 2^63-1, not ") + type_word(*t) +
                         (t->is_number_integer() ? " out of range" : ""));
  }
  record.t = t->is_number_unsigned() ? static_cast<std::int64_t>(t->get<std::uint64_t>()) : t->get<std::int64_t>();
  if (record.t < last_t_) {
    throw TraceError(file_, line_, column_of_key(text, "t"),
                     "time goes backwards: t " + std::to_string(record.t) + " after " + std::to_string(last_t_) + " at line " +
                         std::to_string(last_t_line_));
  }
  for (const char* key : {"node", "kind"}) {
    auto value = json.find(key);
    if (value == json.end()) throw TraceError(file_, line_, 1, std::string("the event has no \"") + key + "\"");
    if (!value->is_string() || value->get_ref<const std::string&>().empty()) {
      throw TraceError(file_, line_, column_of_key(text, key),
                       std::string("\"") + key + "\" is a name, not " + (value->is_string() ? "empty" : type_word(*value)));
    }
    (std::string_view(key) == "node" ? record.node : record.kind) = value->get<std::string>();
  }
  for (auto& [key, value] : json.items()) {
    if (key == "t" || key == "node" || key == "kind") continue;
    if (!value.is_string() && !value.is_boolean() && !value.is_number_integer()) {
      throw TraceError(file_, line_, column_of_key(text, key),
                       "field " + shown(key) + " is " + type_word(value) + "; trace fields are integers, strings or booleans");
    }
    record.fields[key] = std::move(value);
  }
  last_t_ = record.t;
  last_t_line_ = line_;
  return record;
}

namespace {

std::vector<TraceRecord> read_all(TraceReader& reader, const std::string& file, const TraceReaderLimits& limits) {
  std::vector<TraceRecord> records;
  while (std::optional<TraceRecord> record = reader.next()) {
    if (records.size() >= limits.records_max) throw TraceError(file, 0, 0, "more than " + std::to_string(limits.records_max) + " events");
    records.push_back(std::move(*record));
  }
  return records;
}

}  // namespace

std::vector<TraceRecord> read_trace_text(std::string_view text, const std::string& file_name_for_messages, TraceReaderLimits limits) {
  std::istringstream in{std::string(text)};
  TraceReader reader(in, file_name_for_messages, limits);
  return read_all(reader, file_name_for_messages, limits);
}

std::vector<TraceRecord> read_trace_file(const std::string& path, TraceReaderLimits limits) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw TraceError(path, 0, 0, "is a directory, not a trace file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  TraceReader reader(in, path, limits);
  return read_all(reader, path, limits);
}

std::string write_trace_line(const TraceRecord& record) {
  Json line;
  line["t"] = record.t;
  line["node"] = record.node;
  line["kind"] = record.kind;
  for (const auto& [key, value] : record.fields.items()) line[key] = value;
  return line.dump();
}

}  // namespace harness
