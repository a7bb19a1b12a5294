// Where a key is written in a scenario file, for refusals found after parsing: the Scenario struct
// (harness/scenario.h) keeps values, not positions, and live mode's refusals (live/live_refusal.h)
// must still say FILE:LINE:COLUMN as every other bad input does (docs/scenario-format.md, Errors).
#pragma once

#include <optional>
#include <string_view>

namespace live {

struct FilePosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

// The position of the last key of `key_path` in the YAML text `yaml` (of a file the scenario parser
// accepted), or nothing when it is not written there (a default) or the text does not parse.
//
// `key_path` is dotted keys with list items: "zookeeper.servers", "faults[3].after". `[*]` stands
// for the first item of the list under which the rest of the path is written and, when `value` is
// not empty, the last key's value is `value`: ("faults[*].after.event", "zab.proposal_sent") finds
// the first fault triggered by that event. A path ending in an item ("faults[3]") gives the item.
std::optional<FilePosition> find_key_position(std::string_view yaml, std::string_view key_path, std::string_view value = {});

}  // namespace live
