// Test support: a node that runs nothing, for tests that emit hand-made trace events in its name
// (the property checkers' unit tests).
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
