#include "model/elasticjob/JobConfiguration.h"

#include <charconv>
#include <map>

#include "sim/assert.h"

namespace elasticjob {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\'')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\'' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

std::optional<int> parseInt(std::string_view text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<bool> parseBool(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

}  // namespace

std::string JobConfiguration::cronFor(sim::Duration interval) {
  ELECTSIM_ASSERT(interval > sim::Duration::zero());
  if (interval % std::chrono::seconds(1) == sim::Duration::zero()) {
    std::int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(interval).count();
    if (60 % seconds == 0) return "0/" + std::to_string(seconds) + " * * * * ?";
  }
  return "@every " + sim::format_duration(interval);
}

std::optional<sim::Duration> JobConfiguration::intervalFromCron(std::string_view cron) {
  if (cron.starts_with("0/")) {
    std::string_view rest = cron.substr(2);
    std::optional<int> seconds = parseInt(rest.substr(0, rest.find(' ')));
    if (!seconds || *seconds <= 0) return std::nullopt;
    return std::chrono::seconds(*seconds);
  }
  if (cron.starts_with("@every ")) return sim::parse_duration(cron.substr(7));
  return std::nullopt;
}

std::string JobConfiguration::marshal() const {
  // dumpAsMap writes the POJO's properties in alphabetical order and drops null and empty values.
  std::string yaml;
  yaml += "cron: " + cronFor(fireInterval) + "\n";
  yaml += std::string("disabled: ") + (disabled ? "true" : "false") + "\n";
  yaml += std::string("failover: ") + (failover ? "true" : "false") + "\n";
  yaml += "jobName: " + jobName + "\n";
  if (!jobShardingStrategyType.empty()) yaml += "jobShardingStrategyType: " + jobShardingStrategyType + "\n";
  yaml += "maxTimeDiffSeconds: " + std::to_string(maxTimeDiffSeconds) + "\n";
  yaml += std::string("misfire: ") + (misfire ? "true" : "false") + "\n";
  yaml += std::string("monitorExecution: ") + (monitorExecution ? "true" : "false") + "\n";
  yaml += std::string("overwrite: ") + (overwrite ? "true" : "false") + "\n";
  yaml += "reconcileIntervalMinutes: " + std::to_string(reconcileIntervalMinutes) + "\n";
  yaml += "shardingTotalCount: " + std::to_string(shardingTotalCount) + "\n";
  yaml += std::string("staticSharding: ") + (staticSharding ? "true" : "false") + "\n";
  return yaml;
}

std::optional<JobConfiguration> JobConfiguration::unmarshal(std::string_view yaml) {
  std::map<std::string, std::string, std::less<>> values;
  while (!yaml.empty()) {
    std::size_t newline = yaml.find('\n');
    std::string_view line = yaml.substr(0, newline);
    yaml = newline == std::string_view::npos ? std::string_view() : yaml.substr(newline + 1);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    values.emplace(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  }
  auto text = [&values](std::string_view key) -> std::optional<std::string_view> {
    auto found = values.find(key);
    if (found == values.end()) return std::nullopt;
    return std::string_view(found->second);
  };
  JobConfiguration config;
  if (!text("jobName") || !text("cron") || !text("shardingTotalCount")) return std::nullopt;
  config.jobName = std::string(*text("jobName"));
  std::optional<sim::Duration> interval = intervalFromCron(*text("cron"));
  std::optional<int> count = parseInt(*text("shardingTotalCount"));
  if (!interval || !count || *count < 0) return std::nullopt;
  config.fireInterval = *interval;
  config.shardingTotalCount = *count;
  auto flag = [&text](std::string_view key, bool& out) {
    if (auto value = text(key)) {
      if (auto parsed = parseBool(*value)) out = *parsed;
    }
  };
  auto number = [&text](std::string_view key, int& out) {
    if (auto value = text(key)) {
      if (auto parsed = parseInt(*value)) out = *parsed;
    }
  };
  flag("monitorExecution", config.monitorExecution);
  flag("failover", config.failover);
  flag("misfire", config.misfire);
  flag("disabled", config.disabled);
  flag("overwrite", config.overwrite);
  flag("staticSharding", config.staticSharding);
  number("maxTimeDiffSeconds", config.maxTimeDiffSeconds);
  number("reconcileIntervalMinutes", config.reconcileIntervalMinutes);
  if (auto strategy = text("jobShardingStrategyType")) config.jobShardingStrategyType = std::string(*strategy);
  return config;
}

}  // namespace elasticjob
