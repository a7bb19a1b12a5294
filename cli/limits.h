// The reliability limits every command that runs scenarios takes (run, replay, explore, shrink):
// --max-events, --max-nodes, --max-pending-events, --max-memory and, where a file is read,
// --max-file-size. A run that hits one stops with a message naming it (docs/reliability.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/command.h"
#include "harness/runner.h"
#include "harness/scenario.h"
#include "sim/simulation.h"

namespace cli {

// The options' text, checked by simulation_limits() and file_size_limit().
struct LimitOptions {
  std::string max_events;
  std::string max_nodes;
  std::string max_pending_events;
  std::string max_memory;
  std::string max_file_size;
};

// Adds the limit options to `options`; --max-file-size only when the command reads a scenario file.
void add_limit_options(po::options_description& options, LimitOptions& limits, bool reads_file);

// For the commands that read one scenario FILE (run, replay, shrink, live): adds the limit options
// and FILE as the positional argument to `options` (which declares "file", bound to `file`), parses,
// and requires FILE ("COMMAND: `file_role` is required"). False when --help was printed.
bool parse_file_command(const std::string& command, const std::string& synopsis, const std::string& file_role,
                        const Arguments& arguments, po::options_description& options, LimitOptions& limits,
                        const std::string& file, po::variables_map& values);

// The checked values; UsageError ("run: --max-events must be ...") on a bad one.
sim::SimulationLimits simulation_limits(const std::string& command, const LimitOptions& limits);
std::size_t file_size_limit(const std::string& command, const LimitOptions& limits);

// simulation_limits(), then for each limit not given on the command line, the one the scenario's
// failure record carries: a limit hit that explore found replays under the limits that found it.
sim::SimulationLimits scenario_limits(const std::string& command, const LimitOptions& limits, const po::variables_map& values,
                                      const harness::Scenario& scenario);

// Parses a scenario file with the size limit; a ScenarioError becomes a FileError (printed as it is,
// FILE:LINE:COLUMN first; exit status 2).
harness::Scenario load_scenario(const std::string& file, std::size_t size_max);

// A run that stopped at a limit: UsageError "COMMAND: FILE: the run stopped at its limit ...", unless
// the scenario expects model-sanity to fail (then the limit is what it demonstrates).
void fail_on_limit(const std::string& command, const std::string& file, const harness::Scenario& scenario,
                   const harness::RunResult& result);

// --max-trace-size, for the commands that write a --trace: the trace's bound in bytes
// (harness/trace_file.h). Default 4 GiB.
void add_trace_size_option(po::options_description& options, std::string& text);
std::uint64_t trace_size_limit(const std::string& command, const std::string& text);

// --zookeeper-version: the release the model's servers run (3.8.0, 3.8.5, 3.9.3), over the
// scenario's zookeeper.version. UsageError (exit 2) on an unknown one.
void add_zookeeper_version_option(po::options_description& options, std::string& version);
void apply_zookeeper_version(const std::string& command, const std::string& version, harness::Scenario& scenario);
std::string checked_zookeeper_version(const std::string& command, const std::string& version);

}  // namespace cli
