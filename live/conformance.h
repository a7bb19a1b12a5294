// The conformance suite: each check runs the same situation on the simulated ZooKeeper model
// (model/zk, deterministic) and on a real ZooKeeper 3.8 ensemble (LiveEnsemble + LiveClient), and
// compares what both did with what REAL-ZOOKEEPER.md measured, row by row:
//   quantity | model | real | allowed | PASS/FAIL
// A row passes when both sides are within its allowed window (or equal to its expected value).
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "live/installation.h"

namespace live {

struct ConformanceConfig {
  std::chrono::milliseconds tick_time{2000};  // REAL-ZOOKEEPER.md's measurements used 2000
  int init_limit = 10;
  int sync_limit = 5;
  std::uint64_t model_seed = 1;
};

// What one side measured: numbers (durations in ms) and words (sids, modes, names), by key.
struct Measures {
  std::map<std::string, double> milliseconds;
  std::map<std::string, std::string> words;
  std::optional<std::string> error;  // the side could not run the situation (say why)
};

struct Row {
  std::string quantity;
  std::string model;
  std::string real;
  std::string allowed;
  bool pass = false;
};

struct CheckResult {
  std::string name;   // e.g. "leader-kill"
  std::string title;  // the situation, as REAL-ZOOKEEPER.md words it
  std::vector<Row> rows;
  std::vector<std::string> errors;
  double wall_seconds = 0;
  bool pass() const;
};

struct CheckInfo {
  std::string name;
  std::string title;
};
const std::vector<CheckInfo>& conformance_checks();

// The model side of check `name` (model_checks.cpp): deterministic for a seed.
Measures run_model_check(const std::string& name, const ConformanceConfig& config);
// The live side (live_checks.cpp): a real ensemble in real time.
Measures run_live_check(const std::string& name, const ConformanceConfig& config, const Installation& installation);
// The recipe checks (recipe_checks.cpp): a scenario file run by the model and live.
Measures run_model_recipe_check(const std::string& name, const ConformanceConfig& config);
Measures run_live_recipe_check(const std::string& name, const Installation& installation);
// Both sides and the rows.
CheckResult run_conformance_check(const std::string& name, const ConformanceConfig& config, const Installation& installation);

void print_table(const std::vector<CheckResult>& results, std::ostream& out);
nlohmann::ordered_json to_json(const std::vector<CheckResult>& results, const ConformanceConfig& config,
                               const Installation& installation);

}  // namespace live
