// Fuzz target: the scenario parser. Any text must give a validated Scenario or a ScenarioError with
// a FILE:LINE:COLUMN position, never a crash, a hang or another exception; and an accepted scenario
// must round-trip: parse(write(s)) == s, with write(parse(write(s))) == write(s).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "harness/scenario_parser.h"
#include "harness/scenario_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  harness::Scenario scenario;
  try {
    scenario = harness::parse_scenario_text(input, "fuzz.yaml");
  } catch (const harness::ScenarioError& error) {
    fuzz::check_error_position(error.what(), "fuzz.yaml", error.line(), error.column(), input, input);
    return 0;
  }
  std::string written = harness::write_scenario(scenario);
  harness::Scenario again;
  try {
    again = harness::parse_scenario_text(written, "written.yaml");
  } catch (const harness::ScenarioError& error) {
    fuzz::bug("the writer's output does not parse: " + std::string(error.what()) + "\n--- written ---\n" + written, input);
  }
  if (!(again == scenario)) fuzz::bug("parse(write(s)) != s\n--- written ---\n" + written, input);
  std::string rewritten = harness::write_scenario(again);
  if (rewritten != written) fuzz::bug("write(parse(write(s))) != write(s)\n--- written ---\n" + written + "\n--- rewritten ---\n" + rewritten, input);
  return 0;
}
