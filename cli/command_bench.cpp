// electsim bench token-storm: the engine micro-benchmark (more benchmarks join it as models land).
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/token_storm.h"
#include "cli/command.h"

namespace cli {

namespace {

int bench_token_storm(const Arguments& arguments) {
  bench::TokenStormConfig config;
  bool json = false;
  po::options_description options("token-storm options");
  options.add_options()
      ("nodes", po::value(&config.nodes)->default_value(config.nodes), "nodes in the full mesh (2..1000)")
      ("tokens", po::value(&config.tokens)->default_value(config.tokens), "tokens circulating at once (1..1000000)")
      ("deliveries", po::value(&config.deliveries)->default_value(config.deliveries), "stop after this many deliveries (1..10000000000)")
      ("seed", po::value(&config.seed)->default_value(config.seed), "root seed")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line");
  po::variables_map values;
  if (!parse_options("bench token-storm", "[--nodes N] [--tokens K] [--deliveries M] [--json]", arguments, options, {}, values)) {
    return exit_ok;
  }
  // A full mesh holds n·(n-1) directions: 1,000 nodes take about 1 GiB and 7 s to connect; 2,000 pass
  // the default 2-GiB memory budget.
  if (config.nodes < 2 || config.nodes > 1000) throw UsageError("bench token-storm: --nodes must be within 2..1000 (a full mesh of n nodes holds n*(n-1) connections)");
  if (config.tokens < 1 || config.tokens > 1'000'000) throw UsageError("bench token-storm: --tokens must be within 1..1000000");
  // At about 5 M deliveries a second, 10^10 is half an hour: more is a typo, not a benchmark.
  if (config.deliveries < 1 || config.deliveries > 10'000'000'000ULL) throw UsageError("bench token-storm: --deliveries must be within 1..10000000000");

  bench::TokenStormResult result = bench::run_token_storm(config);
  if (!json) {
    std::cout << "token storm: " << config.nodes << " nodes, " << config.tokens << " tokens, " << result.deliveries
              << " deliveries in " << result.wall_seconds << " s\n"
              << "  " << result.deliveries_per_second / 1e6 << " M deliveries/s, " << result.steady_state_allocations
              << " heap allocations in steady state\n";
    return exit_ok;
  }
  nlohmann::ordered_json out;
  out["nodes"] = config.nodes;
  out["tokens"] = config.tokens;
  out["deliveries"] = result.deliveries;
  out["wall_s"] = result.wall_seconds;
  out["deliveries_per_s"] = result.deliveries_per_second;
  out["steady_state_allocations"] = result.steady_state_allocations;
  std::cout << out.dump() << "\n";
  return exit_ok;
}

}  // namespace

int command_bench(const Arguments& arguments) {
  if (arguments.empty() || arguments[0] == "--help" || arguments[0] == "-h") {
    std::cout << "usage: electsim bench BENCHMARK [options]\n\n"
                 "benchmarks:\n"
                 "  token-storm   the engine micro-benchmark: tokens forwarded between nodes\n"
                 "  zk            a ZooKeeper ensemble under a steady write load (speed vs real time)\n"
                 "  strategies    the sharding strategies: balance, items moved on a leave or join, speed\n";
    return arguments.empty() ? exit_bad_input : exit_ok;
  }
  Arguments rest(arguments.begin() + 1, arguments.end());
  if (arguments[0] == "token-storm") return bench_token_storm(rest);
  if (arguments[0] == "strategies") return bench_strategies(rest);
  if (arguments[0] == "zk") return bench_zookeeper(rest);
  throw UsageError("bench: unknown benchmark '" + arguments[0] + "' (see: electsim bench --help)");
}

}  // namespace cli
