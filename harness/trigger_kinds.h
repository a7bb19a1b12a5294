// What a step-triggered fault can wait for (docs/scenario-format.md, Triggers): every named site of
// the models (sim/site.h; `electsim sites` lists them) and the trace events a reader of a run thinks
// in (a server becoming LEADING, an election decided, a session expired, a crash). Each entry says
// which nodes emit it and with which recipes, so that a trigger on a node that never emits its
// event is refused when the file is read, and which fields a trigger's `where` may test.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario.h"
#include "sim/site.h"

namespace harness {

// The roles that emit a kind, as a mask.
enum TriggerRole : std::uint8_t {
  trigger_server = 1,    // zk1..zkN
  trigger_instance = 2,  // i1..iN
  trigger_es_node = 4,   // es1..esN
  trigger_writer = 8,    // w1..wN
  trigger_any = 15,
};

struct TriggerKind {
  std::string_view kind;
  std::uint8_t roles;            // TriggerRole mask
  std::string_view family;       // which recipes run it: "zookeeper", "curator", "latch", "selector", "elasticjob", "naive", "es", "any"
  std::vector<std::string_view> fields;  // what `where` may test
  const sim::Site* site = nullptr;       // a model site, or null for a trace event
  std::string_view what;                 // for a site: its Java step and meaning come from the Site
};

// Every kind, sites first (by model), then events, in a fixed order.
const std::vector<TriggerKind>& trigger_kinds();
const TriggerKind* find_trigger_kind(std::string_view kind);
// Whether `recipe` runs the code that emits `kind` at all (family).
bool trigger_kind_in_recipe(const TriggerKind& kind, Recipe recipe);
// "zk1's 1st zab.current_epoch_written" (and ", where state=LEADING").
std::string describe_trigger(const Trigger& trigger);
std::string ordinal(int n);  // 1st, 2nd, 3rd, 4th, 11th, 21st

}  // namespace harness
