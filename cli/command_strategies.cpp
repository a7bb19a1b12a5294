// electsim strategies (the list) and electsim bench strategies (the comparison).
#include <algorithm>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "bench/strategy_bench.h"
#include "cli/command.h"
#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace cli {

namespace {

// Counts like 1,10,100, each within min..max (the same words whatever is wrong with the list).
std::vector<std::uint32_t> parse_counts(const std::string& option, const std::string& text, unsigned long min, unsigned long max) {
  std::vector<std::uint32_t> counts;
  for (const std::string& element : split_list(text)) {
    std::size_t used = 0;
    unsigned long value = 0;
    try {
      value = std::stoul(element, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (element.empty() || used != element.size() || element[0] == '-' || value < min || value > max) {
      throw UsageError("bench strategies: --" + option + " takes counts like 1,10,100 (each within " + std::to_string(min) + ".." +
                       std::to_string(max) + "), not '" + text + "'");
    }
    if (std::find(counts.begin(), counts.end(), value) != counts.end()) {
      throw UsageError("bench strategies: --" + option + " names " + element + " twice: every row would be measured twice");
    }
    counts.push_back(static_cast<std::uint32_t>(value));
  }
  if (counts.empty()) throw UsageError("bench strategies: --" + option + " needs at least one count");
  return counts;
}

nlohmann::ordered_json row_json(const bench::StrategyBenchRow& row) {
  nlohmann::ordered_json out;
  out["strategy"] = row.strategy;
  out["instances"] = row.instances;
  out["items"] = row.items;
  out["max_over_min"] = row.max_over_min ? nlohmann::ordered_json(*row.max_over_min) : nlohmann::ordered_json(nullptr);
  out["stddev"] = row.stddev;
  out["moved_on_leave"] = row.moved_on_leave ? nlohmann::ordered_json(*row.moved_on_leave) : nlohmann::ordered_json(nullptr);
  out["min_possible_moved_on_leave"] =
      row.min_possible_moved_on_leave ? nlohmann::ordered_json(*row.min_possible_moved_on_leave) : nlohmann::ordered_json(nullptr);
  out["moved_on_join"] = row.moved_on_join;
  out["min_possible_moved_on_join"] = row.min_possible_moved_on_join;
  out["low_item_spread"] = row.low_item_spread;
  out["assignments_per_second"] = row.assignments_per_second;
  out["calls_per_second"] = row.calls_per_second;
  return out;
}

std::string optional_text(const std::optional<std::uint32_t>& value) { return value ? std::to_string(*value) : "-"; }

void print_table(const bench::StrategyBenchResult& result, const bench::StrategyBenchConfig& config) {
  std::cout << "sharding strategies; leave = the last instance goes, join = a new one is appended; "
            << "spread = instances that get item 0 over " << config.spread_jobs << " jobs of " << config.spread_items << " items\n\n"
            << std::left << std::setw(16) << "strategy" << std::right << std::setw(6) << "inst" << std::setw(8) << "items"
            << std::setw(9) << "max/min" << std::setw(10) << "stddev" << std::setw(16) << "leave moved/min" << std::setw(15)
            << "join moved/min" << std::setw(8) << "spread" << std::setw(14) << "M items/s" << "\n";
  for (const bench::StrategyBenchRow& row : result.rows) {
    std::ostringstream ratio;
    if (row.max_over_min) {
      ratio << std::fixed << std::setprecision(2) << *row.max_over_min;
    } else {
      ratio << "inf";
    }
    std::cout << std::left << std::setw(16) << row.strategy << std::right << std::setw(6) << row.instances << std::setw(8) << row.items
              << std::setw(9) << ratio.str() << std::setw(10) << std::fixed << std::setprecision(2) << row.stddev << std::setw(16)
              << (optional_text(row.moved_on_leave) + "/" + optional_text(row.min_possible_moved_on_leave)) << std::setw(15)
              << (std::to_string(row.moved_on_join) + "/" + std::to_string(row.min_possible_moved_on_join)) << std::setw(8)
              << row.low_item_spread << std::setw(14) << std::defaultfloat << std::setprecision(3)
              << row.assignments_per_second / 1e6 << "\n";
  }
  for (const bench::SkippedCell& cell : result.skipped) {
    std::cout << "skipped " << cell.strategy << " at " << cell.instances << " instances x " << cell.items << " items (too long)\n";
  }
}

}  // namespace

int command_strategies(const Arguments& arguments) {
  bool json = false;
  po::options_description options("strategies options");
  options.add_options()("json", po::bool_switch(&json), "print the list as one JSON object on the last line");
  po::variables_map values;
  if (!parse_options("strategies", "[--json]", arguments, options, {}, values)) return exit_ok;
  if (json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const elasticjob::JobShardingStrategy* each : elasticjob::allStrategies()) {
      list.push_back({{"name", each->name()},
                      {"java_type", each->javaType().empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(each->javaType())},
                      {"description", each->description()}});
    }
    std::cout << nlohmann::ordered_json{{"strategies", list}}.dump() << "\n";
    return exit_ok;
  }
  std::cout << std::left << std::setw(17) << "name" << std::setw(16) << "java type" << "description\n";
  for (const elasticjob::JobShardingStrategy* each : elasticjob::allStrategies()) {
    std::cout << std::left << std::setw(17) << each->name() << std::setw(16) << (each->javaType().empty() ? "-" : each->javaType())
              << each->description() << "\n";
  }
  return exit_ok;
}

int bench_strategies(const Arguments& arguments) {
  bool json = false, quick = false;
  std::string strategies_text, instances_text, items_text;
  po::options_description options("strategies options");
  options.add_options()
      ("quick", po::bool_switch(&quick), "a small grid (1, 3, 10 instances x 1, 10, 100 items), for tests")
      ("strategies", po::value(&strategies_text), "only these strategies, comma-separated (default: all)")
      ("instances", po::value(&instances_text), "instance counts, comma-separated (default 1,3,10,100,1000)")
      ("items", po::value(&items_text), "item counts, comma-separated (default 1,10,100,1000,10000,100000)")
      ("json", po::bool_switch(&json), "print {\"results\": [...]} as one JSON object on the last line");
  po::variables_map values;
  if (!parse_options("bench strategies", "[--quick] [--strategies S,...] [--instances N,...] [--items N,...] [--json]", arguments,
                     options, {}, values)) {
    return exit_ok;
  }
  bench::StrategyBenchConfig config = quick ? bench::StrategyBenchConfig::quick() : bench::StrategyBenchConfig{};
  if (values.count("strategies") != 0) config.strategies = split_list(strategies_text);
  if (values.count("instances") != 0) config.instance_counts = parse_counts("instances", instances_text, 1, 100'000);
  if (values.count("items") != 0) config.item_counts = parse_counts("items", items_text, 1, 10'000'000);
  for (const std::string& name : config.strategies) {
    if (elasticjob::findStrategy(name) == nullptr) throw UsageError("bench strategies: unknown strategy '" + name + "'");
    if (std::count(config.strategies.begin(), config.strategies.end(), name) > 1) {
      throw UsageError("bench strategies: --strategies names '" + name + "' twice: every row would be measured twice");
    }
  }

  const bool show_progress = isatty(STDERR_FILENO) != 0;
  bench::StrategyBenchProgress progress;
  if (show_progress) {
    progress = [](const bench::StrategyBenchRow& row, std::size_t done, std::size_t planned) {
      std::cerr << "\r[" << done << "/" << planned << "] " << row.strategy << " " << row.instances << " x " << row.items << "        "
                << std::flush;
    };
  }
  const bench::StrategyBenchResult result = bench::run_strategy_bench(config, progress);
  if (show_progress) std::cerr << "\r" << std::string(60, ' ') << "\r" << std::flush;
  if (!json) {
    print_table(result, config);
    return exit_ok;
  }
  nlohmann::ordered_json out;
  out["results"] = nlohmann::ordered_json::array();
  for (const bench::StrategyBenchRow& row : result.rows) out["results"].push_back(row_json(row));
  out["skipped"] = nlohmann::ordered_json::array();
  for (const bench::SkippedCell& cell : result.skipped) {
    out["skipped"].push_back({{"strategy", cell.strategy}, {"instances", cell.instances}, {"items", cell.items}});
  }
  std::cout << out.dump() << "\n";
  return exit_ok;
}

}  // namespace cli
