// Scenario -> YAML text: failure files from `electsim explore`, shrunk scenarios from `electsim shrink`.
//
// The output is meant to be read by people and diffed: keys in the order of docs/scenario-format.md,
// every key written (defaults included, so a failure file replays the same way even if a default
// changes later), one fault per line in flow style. parse_scenario_text(write_scenario(s)) == s for
// every valid s (one that parse_scenario_text could have produced).
#pragma once

#include <string>

#include "harness/scenario.h"

namespace harness {

std::string write_scenario(const Scenario& scenario);

}  // namespace harness
