// electsim shard: one call of a sharding strategy, the instances in the order given (ElasticJob
// itself passes them in descending id order; see model/elasticjob/strategies/JobInstance.h).
#include <algorithm>
#include <climits>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "cli/command.h"
#include "model/elasticjob/strategies/JavaString.h"
#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace cli {

namespace {

using elasticjob::JobInstance;
using elasticjob::ShardingResult;

constexpr int total_max = 10'000'000;
constexpr std::size_t instances_max = 100'000;

std::string strategy_names() {
  std::string names;
  for (const elasticjob::JobShardingStrategy* each : elasticjob::allStrategies()) names += (names.empty() ? "" : ", ") + std::string(each->name());
  return names;
}

std::vector<JobInstance> parse_instances(const std::string& text) {
  const std::vector<std::string> ids = split_list(text);
  if (ids.empty()) throw UsageError("shard: --instances needs at least one instance id");
  if (ids.size() > instances_max) throw UsageError("shard: at most 100000 instances");
  std::set<std::string> seen;
  std::vector<JobInstance> instances;
  for (const std::string& id : ids) {
    if (id.empty()) throw UsageError("shard: empty instance id in --instances");
    if (!elasticjob::isWellFormedJobInstanceId(id)) {
      throw UsageError("shard: instance id '" + id + "' is not of ElasticJob's form IP@-@PID (e.g. 10.0.0.1@-@4242)");
    }
    if (!seen.insert(id).second) throw UsageError("shard: instance id '" + id + "' is listed twice");
    instances.emplace_back(id);
  }
  return instances;
}

// --previous: the same JSON shape `shard --json` prints; each item non-negative and owned once.
ShardingResult parse_previous(const std::string& text) {
  nlohmann::ordered_json json;
  try {
    json = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(std::string("shard: --previous is not valid JSON: ") + error.what());
  }
  if (!json.is_object()) throw UsageError("shard: --previous must be a JSON object {\"ID\": [items], ...}");
  ShardingResult previous;
  std::set<long long> seen;
  for (const auto& [id, items] : json.items()) {
    if (!items.is_array()) throw UsageError("shard: --previous: the value of '" + id + "' must be a list of items");
    std::vector<int> list;
    for (const auto& item : items) {
      // An item past --total is a count that shrank (noted below); past the largest count there is, a typo.
      if (!item.is_number_integer() || item.get<long long>() < 0 || item.get<long long>() >= total_max) {
        throw UsageError("shard: --previous: '" + id + "' has an item that is not an integer within 0.." + std::to_string(total_max - 1));
      }
      if (!seen.insert(item.get<long long>()).second) {
        throw UsageError("shard: --previous: item " + std::to_string(item.get<long long>()) + " has two owners");
      }
      list.push_back(item.get<int>());
    }
    std::sort(list.begin(), list.end());
    previous.push_back({JobInstance(id), std::move(list)});
  }
  return previous;
}

std::string items_text(const std::vector<int>& items) {
  std::string text = "[";
  for (std::size_t k = 0; k < items.size(); k++) text += (k == 0 ? "" : ", ") + std::to_string(items[k]);
  return text + "]";
}

// {"host0@-@0": [0, 1, 6], "host1@-@0": [2, 3, 7]}: the contract's spacing, in map order.
std::string sharding_json(const ShardingResult& result) {
  std::string text = "{";
  for (std::size_t k = 0; k < result.size(); k++) {
    const nlohmann::json key = result[k].instance.jobInstanceId;
    text += (k == 0 ? "" : ", ") + key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ": " + items_text(result[k].items);
  }
  return text + "}";
}

int items_moved(const ShardingResult& previous, const ShardingResult& result) {
  std::map<int, std::string_view> owners;
  for (const auto& entry : previous) {
    for (int item : entry.items) owners.emplace(item, entry.instance.jobInstanceId);
  }
  int moved = 0;
  for (const auto& entry : result) {
    for (int item : entry.items) {
      auto found = owners.find(item);
      if (found != owners.end() && found->second != entry.instance.jobInstanceId) moved++;
    }
  }
  return moved;
}

void print_human(const elasticjob::JobShardingStrategy& strategy, const std::string& job, int total, const ShardingResult& result,
                 const ShardingResult* previous) {
  std::cout << strategy.name();
  if (!strategy.javaType().empty()) std::cout << " (ElasticJob " << strategy.javaType() << ")";
  std::cout << ", job \"" << job << "\"";
  if (!strategy.javaType().empty()) std::cout << " (Java hashCode " << elasticjob::javaStringHashCode(job) << ")";
  std::cout << ", " << total << " items over " << result.size() << (result.size() == 1 ? " instance:\n" : " instances:\n");
  std::size_t width = 0;
  for (const auto& entry : result) width = std::max(width, entry.instance.jobInstanceId.size());
  for (const auto& entry : result) {
    std::cout << "  " << entry.instance.jobInstanceId << std::string(width - entry.instance.jobInstanceId.size() + 2, ' ')
              << items_text(entry.items) << "\n";
  }
  if (previous != nullptr) std::cout << items_moved(*previous, result) << " items moved from the previous assignment\n";
}

}  // namespace

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> elements;
  if (text.find_first_not_of(' ') == std::string::npos) return elements;
  std::stringstream stream(text);
  std::string element;
  while (std::getline(stream, element, ',')) {
    const std::size_t first = element.find_first_not_of(' ');
    const std::size_t last = element.find_last_not_of(' ');
    elements.push_back(first == std::string::npos ? "" : element.substr(first, last - first + 1));
  }
  if (text.back() == ',') elements.emplace_back();  // getline drops a trailing empty element
  return elements;
}

int command_shard(const Arguments& arguments) {
  std::string strategy_name, job, instances_text, previous_text;
  int total = 0;
  bool json = false;
  po::options_description options("shard options");
  options.add_options()
      ("strategy", po::value(&strategy_name)->required(), ("the strategy: " + strategy_names()).c_str())
      ("job", po::value(&job)->required(), "the job name (the name-based strategies hash it)")
      ("total", po::value(&total)->required(), "sharding total count: items 0..N-1 (0..10000000)")
      ("instances", po::value(&instances_text)->required(), "job instance ids IP@-@PID, comma-separated, in the order to pass them")
      ("previous", po::value(&previous_text), "the current assignment, as the JSON --json prints (read by sticky)")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line");
  po::variables_map values;
  if (!parse_options("shard", "--strategy S --job NAME --total N --instances ID,ID,... [--previous JSON] [--json]\n\n"
                     "Exit status: 0, 2 for bad input, 1 when the strategy fails as ElasticJob's would (rotate with\n"
                     "a job name whose Java hashCode is Integer.MIN_VALUE, e.g. \"polygenelubricants\", and an instance count\n"
                     "that is not a power of two).",
                     arguments, options, {}, values)) {
    return exit_ok;
  }
  const elasticjob::JobShardingStrategy* strategy = elasticjob::findStrategy(strategy_name);
  if (strategy == nullptr) throw UsageError("shard: unknown strategy '" + strategy_name + "' (one of: " + strategy_names() + ")");
  if (job.empty()) throw UsageError("shard: --job must not be empty (ElasticJob: \"jobName can not be empty.\")");
  if (total < 0 || total > total_max) throw UsageError("shard: --total must be within 0..10000000");
  const std::vector<JobInstance> instances = parse_instances(instances_text);
  std::optional<ShardingResult> previous;
  if (values.count("previous") != 0) {
    previous = parse_previous(previous_text);
    if (!strategy->usesPrevious()) std::cerr << "electsim: shard: note: " << strategy->name() << " does not read --previous\n";
    // Items past the count are how a shrinking count looks (20 items, now 10): the strategy drops
    // them (StickyJobShardingStrategy keptOwners). Said, so a typo in --total is not silent.
    std::size_t beyond = 0;
    for (const auto& entry : *previous) beyond += static_cast<std::size_t>(std::count_if(entry.items.begin(), entry.items.end(), [&](int item) { return item >= total; }));
    if (beyond > 0) {
      std::cerr << "electsim: shard: note: " << beyond << " item" << (beyond == 1 ? "" : "s") << " of --previous " << (beyond == 1 ? "is" : "are")
                << " not below --total " << total << ": the count shrank, and they no longer exist\n";
    }
  }

  ShardingResult result;
  try {
    result = strategy->sharding(instances, job, total, previous ? &*previous : nullptr);
  } catch (const elasticjob::ShardingStrategyFailure& failure) {
    std::cerr << "electsim: shard: " << strategy->name() << " fails as ElasticJob would: " << failure.what() << "\n";
    return exit_failed;
  }
  if (json) {
    std::cout << sharding_json(result) << "\n";
  } else {
    print_human(*strategy, job, total, result, previous ? &*previous : nullptr);
  }
  return exit_ok;
}

}  // namespace cli
