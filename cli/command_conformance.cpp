// electsim conformance: the simulated ZooKeeper model and a real ZooKeeper 3.8 ensemble, side by side
// on REAL-ZOOKEEPER.md's situations (live/conformance.h, docs/live-mode.md).
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/limits.h"
#include "live/installation.h"
#include "live/leftovers.h"
#if ELECTSIM_LIVE
#include "live/conformance.h"
#endif

namespace cli {

int command_conformance(const Arguments& arguments) {
  bool json = false;
  std::string only;
  bool list = false;
  std::string zookeeper_version;
  po::options_description options("conformance options");
  options.add_options()
      ("zookeeper-version", po::value(&zookeeper_version),
       "the ZooKeeper release the model side runs: 3.8.0 (default), 3.8.5 or 3.9.3 (the real side is the installed 3.8)")
      ("json", po::bool_switch(&json), "print the result as one JSON object")
      ("only", po::value(&only), "run only this check (see --list)")
      ("list", po::bool_switch(&list), "list the checks");
  po::positional_options_description positional;
  po::variables_map values;
  if (!parse_options("conformance", "[--json] [--only NAME] [--list] [--zookeeper-version V]", arguments, options, positional, values)) return exit_ok;
  if (!zookeeper_version.empty()) checked_zookeeper_version("conformance", zookeeper_version);
#if !ELECTSIM_LIVE
  (void)json;
  (void)list;
  std::cerr << "electsim: conformance: live mode unavailable: this electsim was built without the ZooKeeper C client "
               "(install libzookeeper-mt-dev, e.g. with scripts/setup, and configure again)\n";
  return exit_bad_input;
#else
  const auto& checks = live::conformance_checks();
  if (list) {
    if (json) {
      nlohmann::ordered_json listed = nlohmann::ordered_json::array();
      for (const auto& check : checks) listed.push_back({{"name", check.name}, {"title", check.title}});
      std::cout << listed.dump() << "\n";
      return exit_ok;
    }
    for (const auto& check : checks) std::cout << check.name << std::string(18 - std::min<std::size_t>(check.name.size(), 17), ' ') << check.title << "\n";
    return exit_ok;
  }
  // --only "" names no check: refused like an unknown one, not taken for "every check" (4 minutes of JVMs).
  if (values.count("only") != 0 && only.empty()) throw UsageError("conformance: --only needs a check's name (see: electsim conformance --list)");
  std::vector<std::string> names;
  for (const auto& check : checks) {
    if (only.empty() || check.name == only) names.push_back(check.name);
  }
  if (names.empty()) throw UsageError("conformance: unknown check '" + only + "' (see: electsim conformance --list)");
  std::string missing;
  std::optional<live::Installation> installation = live::find_installation(missing);
  if (!installation) {
    std::cerr << "electsim: conformance: live mode unavailable: " << missing << " (scripts/setup installs both)\n";
    return exit_bad_input;
  }
  // What killed runs left (their namespaces would otherwise stay until a run reclaims the slot).
  live::print_sweep(live::remove_leftovers(), "conformance", std::cerr, std::cerr);
  live::ConformanceConfig config;
  if (!zookeeper_version.empty()) config.model_zookeeper_version = zookeeper_version;
  std::vector<live::CheckResult> results;
  for (const std::string& name : names) {
    if (!json) std::cerr << "conformance: " << name << " ...\n";
    results.push_back(live::run_conformance_check(name, config, *installation));
  }
  if (json) {
    std::cout << live::to_json(results, config, *installation).dump() << "\n";
  } else {
    std::cout << "ZooKeeper " << installation->zookeeper_version << " (real) vs the electsim model; tickTime " << config.tick_time.count()
              << " ms, initLimit " << config.init_limit << ", syncLimit " << config.sync_limit << "\n";
    live::print_table(results, std::cout);
  }
  for (const auto& result : results) {
    if (!result.pass()) return exit_failed;
  }
  return exit_ok;
#endif
}

}  // namespace cli
