// Reading a trace back: the JSON Lines that `electsim run --trace` writes (sim::JsonLinesSink), one
// event a line, `{"t": <ns>, "node": "<name>", "kind": "<kind>", ...fields}`. For tools that work on
// a finished run (diagrams, narration, notebooks' helpers, tests).
//
// Strict like the scenario parser: a line that is not a JSON object, lacks `t`, `node` or `kind`,
// repeats a key, goes back in time, or carries a field that is not an integer, a string or a
// boolean is an error, `FILE:LINE:COLUMN: message`, and reading stops there. Blank lines are
// skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace harness {

struct TraceRecord {
  std::int64_t t = 0;  // nanoseconds since the run started
  std::string node;    // "zk2", "i1", ...; "sim" for the engine and the harness
  std::string kind;    // "zk.state", "fault.crash", ...
  // Every other key of the line, in the line's order: integers, strings and booleans.
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  std::size_t line = 0;  // where it was read, 1-based (0 for a record made in memory)

  sim::Instant time() const { return sim::epoch + sim::Duration{t}; }
  std::optional<std::int64_t> integer(std::string_view key) const;  // also an unsigned that fits
  std::optional<std::uint64_t> unsigned_integer(std::string_view key) const;
  std::optional<std::string> text(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;

  // Same event (the line it came from does not count).
  friend bool operator==(const TraceRecord& a, const TraceRecord& b) {
    return a.t == b.t && a.node == b.node && a.kind == b.kind && a.fields == b.fields;
  }
};

// what() is "FILE:LINE:COLUMN: message" (1-based), or "FILE: message" (line and column 0) for an
// error about the whole file (it cannot be opened, it has too many events).
class TraceError : public std::runtime_error {
 public:
  TraceError(std::string file, std::size_t line, std::size_t column, std::string message);
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::size_t line_;
  std::size_t column_;
  std::string message_;
};

struct TraceReaderLimits {
  std::size_t line_bytes_max = std::size_t{1} << 20;  // one event; real ones are under a kilobyte
  std::uint64_t records_max = 50'000'000;             // read_trace_* only: what fits in memory
};

// Streams records one at a time, so a trace of any length can be read in constant memory.
class TraceReader {
 public:
  TraceReader(std::istream& in, std::string file_name_for_messages, TraceReaderLimits limits = {});
  // The next record, or nothing at the end. Throws TraceError.
  std::optional<TraceRecord> next();
  std::size_t line() const { return line_; }  // lines read so far

 private:
  TraceRecord parse_line(std::string_view text);

  std::istream& in_;
  std::string file_;
  TraceReaderLimits limits_;
  std::string buffer_;
  std::size_t line_ = 0;
  std::int64_t last_t_ = 0;
  std::size_t last_t_line_ = 0;
};

std::vector<TraceRecord> read_trace_text(std::string_view text, const std::string& file_name_for_messages,
                                         TraceReaderLimits limits = {});
std::vector<TraceRecord> read_trace_file(const std::string& path, TraceReaderLimits limits = {});

// The record as one JSON Lines line (without the newline), byte for byte as sim::JsonLinesSink writes
// it, so read then write reproduces an electsim trace exactly.
std::string write_trace_line(const TraceRecord& record);

}  // namespace harness
