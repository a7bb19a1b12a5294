// A node whose processes are given by the test as a coroutine lambda. The lambda lives in the node
// (in a std::function member) for the node's whole life, so its captures stay valid across every
// suspension and restart.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/network.h"
#include "sim/node.h"
#include "sim/sync.h"

namespace test {

using namespace std::chrono_literals;

class ScriptNode final : public sim::Node {
 public:
  using Script = std::function<sim::Task<void>(ScriptNode&)>;

  ScriptNode(sim::Simulation& sim, std::string name, Script script = {}) : Node(sim, std::move(name)), script_(std::move(script)) {}

  void set_script(Script script) { script_ = std::move(script); }
  // Events recorded by scripts, with the time they happened.
  std::vector<std::pair<sim::Instant, std::string>> log;
  void record(std::string what) { log.emplace_back(sim().now(), std::move(what)); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& [time, what] : log) out.push_back(what);
    return out;
  }
  int stop_calls = 0;

 protected:
  void on_start() override {
    if (script_) spawn(script_(*this));
  }
  void on_stop() override { stop_calls++; }

 private:
  Script script_;
};

// Records a line when destroyed: proves a crash destroyed a frame.
struct DestructionProbe {
  ScriptNode* node;
  std::string what;
  ~DestructionProbe() {
    if (node != nullptr) node->record(what);
  }
};

}  // namespace test
