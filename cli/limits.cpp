#include "cli/limits.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <utility>
#include <vector>
#include <limits>

#include "harness/scenario_parser.h"

namespace cli {

namespace {

constexpr std::uint64_t mebibyte = std::uint64_t{1} << 20;

// A whole number in [min, max] from an option's text, optionally with a size unit when `sizes`
// (KiB, MiB, GiB; K, M and G mean the same).
std::uint64_t parse_number(const std::string& command, const std::string& option, const std::string& text, std::uint64_t min,
                           std::uint64_t max, bool sizes) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) digits++;
  std::string unit = text.substr(digits);
  std::uint64_t scale = 1;
  if (sizes && (unit == "K" || unit == "KiB")) scale = std::uint64_t{1} << 10;
  else if (sizes && (unit == "M" || unit == "MiB")) scale = mebibyte;
  else if (sizes && (unit == "G" || unit == "GiB")) scale = std::uint64_t{1} << 30;
  else if (!unit.empty()) digits = 0;  // refused below
  std::uint64_t value = 0;
  bool valid = digits > 0 && digits <= 19;
  for (std::size_t i = 0; valid && i < digits; i++) value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  if (valid && value > std::numeric_limits<std::uint64_t>::max() / scale) valid = false;
  if (valid) value *= scale;
  if (!valid || value < min || value > max) {
    throw UsageError(command + ": --" + option + " must be a whole number" + (sizes ? " of bytes (or with KiB, MiB, GiB)" : "") +
                     " from " + std::to_string(min) + " to " + std::to_string(max) + ", got '" + text + "'");
  }
  return value;
}

}  // namespace

void add_limit_options(po::options_description& options, LimitOptions& limits, bool reads_file) {
  sim::SimulationLimits defaults;
  limits.max_events = std::to_string(defaults.max_events);
  limits.max_nodes = std::to_string(defaults.max_nodes);
  limits.max_pending_events = std::to_string(defaults.max_pending_events);
  limits.max_memory = std::to_string(defaults.max_memory_bytes / mebibyte);
  limits.max_file_size = std::to_string(harness::scenario_file_size_max);
  options.add_options()
      ("max-events", po::value(&limits.max_events), ("limit: events one run may process (default " + limits.max_events + ")").c_str())
      ("max-nodes", po::value(&limits.max_nodes), ("limit: nodes in one simulation (default " + limits.max_nodes + ")").c_str())
      ("max-pending-events", po::value(&limits.max_pending_events),
       ("limit: events queued at once in one run (default " + limits.max_pending_events + ")").c_str())
      ("max-memory", po::value(&limits.max_memory),
       ("limit: MiB of heap one run may grow by (default " + limits.max_memory + "; see docs/reliability.md)").c_str());
  if (reads_file) {
    options.add_options()("max-file-size", po::value(&limits.max_file_size),
                          "limit: bytes of a scenario file, or with KiB, MiB (default 1MiB)");
  }
}

bool parse_file_command(const std::string& command, const std::string& synopsis, const std::string& file_role,
                        const Arguments& arguments, po::options_description& options, LimitOptions& limits,
                        const std::string& file, po::variables_map& values) {
  add_limit_options(options, limits, true);
  po::positional_options_description positional;
  positional.add("file", 1);
  if (!parse_options(command, synopsis, arguments, options, positional, values)) return false;
  if (file.empty()) throw UsageError(command + ": " + file_role + " is required (see: electsim " + command + " --help)");
  return true;
}

sim::SimulationLimits simulation_limits(const std::string& command, const LimitOptions& limits) {
  sim::SimulationLimits checked;
  checked.max_events = parse_number(command, "max-events", limits.max_events, 1, 1'000'000'000'000ULL, false);
  checked.max_nodes = static_cast<std::uint32_t>(parse_number(command, "max-nodes", limits.max_nodes, 1, 1'000'000, false));
  checked.max_pending_events =
      static_cast<std::uint32_t>(parse_number(command, "max-pending-events", limits.max_pending_events, 1, 1'000'000'000, false));
  checked.max_memory_bytes = parse_number(command, "max-memory", limits.max_memory, 1, 1 << 20, false) * mebibyte;
  return checked;
}

sim::SimulationLimits scenario_limits(const std::string& command, const LimitOptions& limits, const po::variables_map& values,
                                      const harness::Scenario& scenario) {
  sim::SimulationLimits checked = simulation_limits(command, limits);
  if (!scenario.failure) return checked;
  // Option names and the failure record's keys (FailureRecord::limits).
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> names{{
      {"max-events", "max_events"},
      {"max-nodes", "max_nodes"},
      {"max-pending-events", "max_pending_events"},
      {"max-memory", "max_memory_bytes"},
  }};
  std::vector<std::string> given;
  for (const auto& [option, key] : names) {
    if (values.count(std::string(option)) != 0) given.emplace_back(key);
  }
  return harness::with_recorded_limits(checked, scenario.failure->limits, given);
}

std::size_t file_size_limit(const std::string& command, const LimitOptions& limits) {
  return static_cast<std::size_t>(parse_number(command, "max-file-size", limits.max_file_size, 1, std::uint64_t{1} << 30, true));
}

harness::Scenario load_scenario(const std::string& file, std::size_t size_max) {
  try {
    return harness::parse_scenario_file(file, size_max);
  } catch (const harness::ScenarioError& error) {
    throw FileError(error.what());
  }
}

void fail_on_limit(const std::string& command, const std::string& file, const harness::Scenario& scenario,
                   const harness::RunResult& result) {
  if (!result.limit) return;
  bool expected = std::find(scenario.expect.fail.begin(), scenario.expect.fail.end(), "model-sanity") != scenario.expect.fail.end() ||
                  (scenario.failure && scenario.failure->property == "model-sanity");
  if (expected) return;
  std::string name = result.limit->substr(0, result.limit->find(':'));
  throw UsageError(command + ": " + file + ": the run stopped at its limit " + *result.limit + " (seed " + std::to_string(result.seed) +
                   "; raise it with --" + name + ")");
}

void add_trace_size_option(po::options_description& options, std::string& text) {
  text = "4GiB";
  options.add_options()("max-trace-size", po::value(&text),
                        "limit: bytes of the --trace file, or with KiB, MiB, GiB; the run stops there (default 4GiB)");
}

std::uint64_t trace_size_limit(const std::string& command, const std::string& text) {
  return parse_number(command, "max-trace-size", text, std::uint64_t{1} << 10, std::uint64_t{1} << 40, true);
}

void add_zookeeper_version_option(po::options_description& options, std::string& version) {
  options.add_options()("zookeeper-version", po::value(&version),
                        "the ZooKeeper release the servers run: 3.8.0, 3.8.5 or 3.9.3 (default: the scenario's zookeeper.version, else 3.8.0)");
}

std::string checked_zookeeper_version(const std::string& command, const std::string& version) {
  if (!harness::is_zookeeper_version(version)) {
    throw UsageError(command + ": --zookeeper-version takes 3.8.0, 3.8.5 or 3.9.3, got '" + version + "'");
  }
  return version;
}

void apply_zookeeper_version(const std::string& command, const std::string& version, harness::Scenario& scenario) {
  if (version.empty()) return;
  scenario.zookeeper.version = checked_zookeeper_version(command, version);
}

}  // namespace cli
