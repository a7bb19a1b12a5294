// Swarm testing: one random scenario per seed, for `electsim explore`, the property-based tests and
// the benchmarks. As in FoundationDB's and TigerBeetle's simulators, each run first draws its own
// "swarm": which fault kinds are enabled at all and how intense they are, and a deployment (server
// and instance counts, session timeout, latency). Runs that only crash, or only partition, or pause
// a lot, reach corners that a uniform mix of every fault dilutes (Groce et al., "Swarm Testing",
// ISSTA 2012).
//
// Every scenario has two phases. The fault phase applies the faults. The liveness tail (the second
// half of the run, or more if the recipe's leader bound needs it) heals the network and restarts
// every stopped node at its start, so that eventual-leader and full-coverage can be judged; nothing
// is injected after it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario.h"

namespace harness {

struct SwarmOptions {
  Recipe recipe = Recipe::elasticjob;
  sim::Duration duration = 60s;
  // The fault kinds a run may draw from (each run enables a random non-empty subset). Empty: every
  // kind that makes sense for the recipe (fault_kinds_for).
  std::vector<FaultKind> faults;
  std::vector<std::string> bugs;  // bug switches, as in a file's `bugs:`
  // Also draw step-triggered faults (docs/exploration.md): a crash, power-off, pause or isolation at
  // the n-th occurrence of a site or event of the recipe's nodes. From a random stream of their own,
  // so the timed schedule of a seed is the same with or without them.
  bool step_faults = true;
  std::string zookeeper_version = "3.8.0";  // every run's zookeeper.version
};

// The fault kinds that make sense for a recipe: disable, enable and set_sharding_total_count only
// for elasticjob, shutdown for recipes with instances.
std::vector<FaultKind> fault_kinds_for(Recipe recipe);

// The recipe explore takes for a bug switch without --recipe: the first it applies to
// (bug_applies_to; none for ZooKeeper's switches, leader-latch for Curator's); nullopt if unknown.
std::optional<Recipe> recipe_for_bug(std::string_view bug);
// The same for several: the first recipe they all apply to; nullopt if one is unknown or no recipe
// runs them all (es- with any other, ej- with latch-).
std::optional<Recipe> recipe_for_bugs(const std::vector<std::string>& bugs);

// The scenario of run `seed`: deterministic in (options, seed). Its name is
// "explore-<recipe>-<seed>" and its description records the swarm drawn. It always passes the
// parser's validation (parse_scenario_text(write_scenario(s)) == s).
Scenario generate_scenario(const SwarmOptions& options, std::uint64_t seed);

}  // namespace harness
