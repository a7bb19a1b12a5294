// Test support: a node that runs nothing of its own, for tests that emit hand-made trace events in
// its name (the property checkers' unit tests) or run a model's parts in it (ElasticJob's registry
// and notify executor).
#pragma once

#include <string>
#include <utility>

#include "sim/node.h"

namespace test_support {

class IdleNode final : public sim::Node {
 public:
  IdleNode(sim::Simulation& sim, std::string name) : Node(sim, std::move(name)) {}

 protected:
  void on_start() override {}
};

}  // namespace test_support
