// electsim bugs / electsim properties: the catalogues, with one-line descriptions.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "harness/registry.h"
#include "harness/trigger_kinds.h"

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

namespace cli {

// electsim sites [--recipe R] [--events] [--json]: the named sites of the models a trigger can name,
// each with the Java step it mirrors; --events adds the trace events a trigger can name too.
int command_sites(const Arguments& arguments) {
  std::string recipe_text;
  bool events = false;
  bool json = false;
  po::options_description options("sites options");
  options.add_options()("recipe", po::value(&recipe_text), "only the sites a run of this recipe reaches (none, elasticjob, leader-latch, ...)")(
      "events", po::bool_switch(&events), "also list the trace events a trigger can name")("json", po::bool_switch(&json), "print the list as JSON");
  po::variables_map values;
  if (!parse_options("sites", "[--recipe R] [--events] [--json]", arguments, options, {}, values)) return exit_ok;
  std::optional<harness::Recipe> recipe;
  if (!recipe_text.empty()) {
    recipe = harness::recipe_from_name(recipe_text);
    if (!recipe) throw UsageError("sites: unknown recipe '" + recipe_text + "' (none, elasticjob, leader-latch, leader-selector, naive-master, es-zen)");
  }
  std::vector<const harness::TriggerKind*> shown;
  for (const harness::TriggerKind& kind : harness::trigger_kinds()) {
    if (kind.site == nullptr && !events) continue;
    if (recipe && !harness::trigger_kind_in_recipe(kind, *recipe)) continue;
    shown.push_back(&kind);
  }
  auto roles = [](std::uint8_t mask) {
    std::string text;
    for (auto [bit, name] : {std::pair{harness::trigger_server, "servers"}, std::pair{harness::trigger_instance, "instances"},
                             std::pair{harness::trigger_es_node, "es nodes"}, std::pair{harness::trigger_writer, "writers"}}) {
      if (mask & bit) text += (text.empty() ? "" : ", ") + std::string(name);
    }
    return text;
  };
  auto fields = [](const harness::TriggerKind& kind) {
    std::string text;
    for (std::string_view field : kind.fields) text += (text.empty() ? "" : " ") + std::string(field);
    return text;
  };
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const harness::TriggerKind* kind : shown) {
      nlohmann::ordered_json entry{{"kind", kind->kind}, {"site", kind->site != nullptr}, {"nodes", roles(kind->roles)}, {"fields", fields(*kind)}};
      if (kind->site != nullptr) {
        entry["holds"] = kind->site->holds;
        entry["java"] = kind->site->java;
      }
      entry["what"] = kind->what;
      out.push_back(std::move(entry));
    }
    std::cout << out.dump() << "\n";
    return exit_ok;
  }
  for (const harness::TriggerKind* kind : shown) {
    std::cout << kind->kind << "  (" << roles(kind->roles);
    if (kind->site != nullptr) std::cout << (kind->site->holds ? "; holds the step" : "; lands when the step ends");
    if (!kind->fields.empty()) std::cout << "; fields: " << fields(*kind);
    std::cout << ")\n";
    if (kind->site != nullptr) std::cout << "    " << kind->site->java << "\n";
    std::cout << "    " << kind->what << "\n";
  }
  if (!events) std::cout << "\n(--events also lists the trace events a trigger can name: zk.state, fle.decide, node.crash, ...)\n";
  return exit_ok;
}

}  // namespace cli
