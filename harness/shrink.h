// Shrinking: the smallest scenario that still violates the same property. The candidates come from
// RapidCheck's shrinkers (rc::shrink::removeChunks over the faults, rc::shrink::towards over counts
// and durations, rc::shrink::eachElement over fault shapes), and the search is RapidCheck's own
// greedy one: take the first candidate that still fails, start again from it, stop when none does.
//
// Candidate order puts the biggest simplifications first: fewer faults, then fewer nodes, then a
// shorter run, then simpler fault shapes (a crash rather than a power-off, an isolation rather than
// a partition, shorter pauses, rounder times). Every candidate is checked by the scenario parser
// (a fault may name a node that a smaller deployment no longer has) before it is run.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "harness/scenario.h"
#include "sim/simulation.h"

namespace harness {

struct ShrinkOptions {
  std::string property;      // the property to keep violated; empty: see shrink_target
  std::uint64_t max_runs = 2000;  // candidate runs at most
  unsigned jobs = 1;         // candidates run in parallel batches; the result does not depend on it
  sim::SimulationLimits limits;  // for every run (a candidate that hits one violates model-sanity)
  // Set from a signal handler (Ctrl-C): the runs in flight stop within 100 ms of simulated time, their
  // verdicts are dropped, and shrink returns the smallest failing scenario found so far.
  const std::atomic<bool>* interrupted = nullptr;
};

struct ShrinkStep {
  std::uint64_t runs = 0;    // candidates run so far
  std::size_t faults = 0;    // the current best's fault count
  sim::Duration duration{};  // and its duration
  std::string what;          // what the last accepted step simplified
  bool accepted = false;     // false: a batch of candidates ran and none still fails (a heartbeat)
};

struct ShrinkResult {
  Scenario scenario;          // the smallest failing scenario found
  std::string property;
  std::uint64_t runs = 0;
  std::uint64_t steps = 0;    // accepted simplifications
  std::size_t faults_before = 0;
  // Why it stopped early, if it did: the result is then the smallest found so far (`steps` may be 0).
  bool interrupted = false;
  bool out_of_memory = false;  // a candidate run or its thread could get no memory
};

// The property a failing scenario violates: its failure record's, else the first of expect.hold
// (then the recipe's promised set) that the scenario violates. Nothing if it violates none.
std::optional<std::string> shrink_target(const Scenario& scenario, const sim::SimulationLimits& limits = {});

// Whether `scenario` (run as is, with its seed) violates `property`.
bool violates(const Scenario& scenario, const std::string& property, const sim::SimulationLimits& limits = {});

// Nothing when the input does not violate the property. Progress is called after every batch of
// candidates (ShrinkStep::accepted says whether one of them was kept). Interrupted or out of memory,
// it returns what it has, flagged; an interruption before the input's own run ends returns a result
// with steps 0 and an empty property.
std::optional<ShrinkResult> shrink(const Scenario& failing, const ShrinkOptions& options,
                                   const std::function<void(const ShrinkStep&)>& progress);

}  // namespace harness
