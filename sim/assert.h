// Assertions that stay on in Release builds (TIGER_STYLE): a failed assertion inside a simulation is
// a finding. It throws AssertionFailure, which the harness catches and reports with the run's seed,
// so one broken run never takes down the other runs of an exploration.
#pragma once

#include <stdexcept>
#include <string>

namespace sim {

class AssertionFailure : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void assertion_failed(const char* expression, const char* file, int line, const std::string& message);

[[noreturn]] inline void unreachable_reached(const char* file, int line) {
  assertion_failed("unreachable", file, line, "");
}

}  // namespace sim

#define ELECTSIM_ASSERT(condition)                                                     \
  do {                                                                                 \
    if (!(condition)) [[unlikely]] ::sim::assertion_failed(#condition, __FILE__, __LINE__, ""); \
  } while (false)

#define ELECTSIM_ASSERT_MSG(condition, message)                                        \
  do {                                                                                 \
    if (!(condition)) [[unlikely]] ::sim::assertion_failed(#condition, __FILE__, __LINE__, (message)); \
  } while (false)

#define ELECTSIM_UNREACHABLE() ::sim::unreachable_reached(__FILE__, __LINE__)
