// naive-master-stable: source 002's anti-jitter promise. When /master goes away while its holder is
// still alive (a release, or a session lost to a brief jitter), the same server takes it back:
// mastership moves to another server only when the old master's process is gone.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "properties/Property.h"

namespace properties {

class NaiveMasterStable final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "naive-master-stable"; }
  void on_event(const sim::TraceEvent& event) override;

 private:
  std::optional<std::string> master_;  // the last server to take /master
  std::map<std::string, bool> alive_;
};

}  // namespace properties
