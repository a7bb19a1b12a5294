// electsim live FILE: the scenario's recipe code (Curator, ElasticJob) on real ZooKeeper sessions
// against a real ZooKeeper 3.8 ensemble, in real time, with the scenario's faults applied to the
// real processes and connections; judged by the same properties and reported as `run` does
// (docs/live-mode.md).
#pragma once

#include <optional>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "harness/runner.h"
#include "harness/scenario.h"
#include "live/installation.h"

namespace live {

struct LiveRunOptions {
  std::ostream* trace_out = nullptr;
  std::uint64_t trace_bytes_max = 0;  // the trace's bound (harness/trace_file.h); 0: none
  std::ostream* progress = nullptr;  // a line per phase (stderr), or null
};

struct LiveRunResult {
  harness::RunResult run;
  std::vector<std::string> skipped_faults;
  bool interrupted = false;  // Ctrl-C: the run stopped early, everything was still cleaned up
};

LiveRunResult run_live(const harness::Scenario& scenario, const Installation& installation, const LiveRunOptions& options);

}  // namespace live
