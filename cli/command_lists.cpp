// electsim bugs / electsim properties: the catalogues, with one-line descriptions.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "harness/registry.h"

namespace cli {

namespace {

int list(const std::string& command, const std::vector<harness::Entry>& entries, const Arguments& arguments) {
  bool json = false;
  po::options_description options(command + " options");
  options.add_options()("json", po::bool_switch(&json), "print the list as JSON");
  po::variables_map values;
  if (!parse_options(command, "[--json]", arguments, options, {}, values)) return exit_ok;
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const harness::Entry& entry : entries) out.push_back({{"name", entry.name}, {"summary", entry.summary}});
    std::cout << out.dump() << "\n";
    return exit_ok;
  }
  std::size_t width = 0;
  for (const harness::Entry& entry : entries) width = std::max(width, entry.name.size());
  for (const harness::Entry& entry : entries) {
    std::cout << entry.name << std::string(width + 2 - entry.name.size(), ' ') << entry.summary << "\n";
  }
  return exit_ok;
}

}  // namespace

int command_bugs(const Arguments& arguments) { return list("bugs", harness::bug_switches(), arguments); }
int command_properties(const Arguments& arguments) { return list("properties", harness::properties(), arguments); }

}  // namespace cli
