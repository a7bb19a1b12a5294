// Shared by the fuzz targets: how a target reports a bug it found. libFuzzer (or the replay driver)
// sees an abort and keeps the input; the message says what was wrong with it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace fuzz {

[[noreturn]] inline void bug(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "\nfuzz target found a bug: %s\n--- input (%zu bytes) ---\n%.*s\n--- end of input ---\n", what.c_str(),
               input.size(), static_cast<int>(input.size() < 4000 ? input.size() : 4000), input.data());
  std::abort();
}

// The FILE:LINE:COLUMN contract of an error (docs/scenario-format.md, "Errors"): the file name first,
// line and column both 0 (about the whole file) or both at least 1, the line within the text.
inline void check_error_position(const std::string& what, const std::string& file, int line, int column, std::string_view text,
                                 std::string_view input) {
  if (what.rfind(file + ":", 0) != 0) bug("the error does not start with '" + file + ":': " + what, input);
  if ((line == 0) != (column == 0)) bug("an error with a line but no column, or the reverse: " + what, input);
  if (line < 0 || column < 0) bug("a negative line or column: " + what, input);
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  if (static_cast<std::size_t>(line) > lines + 1) bug("the error points past the end of the text: " + what, input);
  std::string prefix = line == 0 ? file + ": " : file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  if (what.rfind(prefix, 0) != 0) bug("what() is not '" + prefix + "message': " + what, input);
  if (what.size() == prefix.size()) bug("an error without a message: " + what, input);
}

}  // namespace fuzz
