// Scenario files: YAML text -> a validated Scenario, or a ScenarioError that says where and why.
//
// Strict by design: an unknown key, a bad duration or number, an unknown node, bug switch or
// property, or a fault after the end is an error, and nothing runs. A typo must never silently turn
// into a default: a scenario that quietly tests something else is worse than one that does not run.
// The format is docs/scenario-format.md; the contract it extends is SCENARIO-FORMAT.md.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/scenario.h"

namespace harness {

// A scenario file larger than this is refused before it is parsed (a reliability limit: real
// scenarios are a few kilobytes; a generated one with faults_max faults stays well under it).
inline constexpr std::size_t scenario_file_size_max = 1024 * 1024;

// A bad scenario file. what() is "FILE:LINE:COLUMN: message", with 1-based line and column, for an
// error inside the text; it is "FILE: message" (line and column 0) for one about the file as a whole:
// it cannot be read, it is too large, or it is empty. The caller exits with status 2.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, int line, int column, std::string message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }      // 1-based; 0 when the error is about the whole file
  int column() const { return column_; }  // 1-based; 0 when the error is about the whole file
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string message_;
};

// Reads and parses the file at `path`; messages name it as given. A file larger than `size_max`
// bytes is refused unread (`electsim run --max-file-size`).
Scenario parse_scenario_file(const std::string& path, std::size_t size_max = scenario_file_size_max);

// Parses `yaml`; `file_name_for_messages` is the FILE of every message.
Scenario parse_scenario_text(std::string_view yaml, const std::string& file_name_for_messages,
                             std::size_t size_max = scenario_file_size_max);

}  // namespace harness
