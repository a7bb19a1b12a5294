#include "properties/monotonic_reads.h"

#include "properties/zxid_text.h"

namespace properties {

std::span<const std::string_view> ZabMonotonicReads::kinds() const {
  static constexpr std::string_view read[] = {"workload.seen"};
  return read;
}

void ZabMonotonicReads::on_event(const sim::TraceEvent& event) {
  if (event.kind != "workload.seen") return;
  std::int64_t mzxid = event.integer("mzxid");
  std::string how(event.text("how"));
  auto key = std::make_tuple(event.node, event.integer("session"), std::string(event.text("path")));
  auto [known, inserted] = newest_.try_emplace(std::move(key), mzxid, how);
  if (inserted) return;
  if (mzxid < known->second.first) {
    violate(node_name(event.node) + " " + how + "s " + std::get<2>(known->first) + " at mzxid " + zxid_text(mzxid) + " after its session saw it at " +
            zxid_text(known->second.first) + " (by a " + known->second.second + "): a read went back in time");
    return;
  }
  known->second = {mzxid, how};
}

}  // namespace properties
