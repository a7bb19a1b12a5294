#include "properties/zab_properties.h"

#include "properties/zxid_text.h"

namespace properties {

std::span<const std::string_view> ZabSingleLeader::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"zab.established", "zab.following"};
  return read;
}

void ZabSingleLeader::on_event(const sim::TraceEvent& event) {
  if (event.kind == "zab.established") {
    std::int64_t epoch = event.integer("epoch");
    std::int64_t sid = event.integer("sid");
    auto [known, inserted] = leader_of_epoch_.try_emplace(epoch, sid, event.node);
    if (!inserted && known->second.first != sid) {
      violate("two leaders established epoch " + std::to_string(epoch) + ": " + node_name(known->second.second) + " and " +
              node_name(event.node));
    }
  } else if (event.kind == "zab.following") {
    std::int64_t epoch = event.integer("epoch");
    std::int64_t leader = event.integer("leader");
    auto known = leader_of_epoch_.find(epoch);
    if (known != leader_of_epoch_.end() && known->second.first != leader) {
      violate(node_name(event.node) + " follows sid " + std::to_string(leader) + " in epoch " + std::to_string(epoch) +
              ", whose leader is " + node_name(known->second.second));
    }
  }
}

std::span<const std::string_view> ZabAgreement::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"zab.commit", "zab.established"};
  return read;
}

void ZabAgreement::on_event(const sim::TraceEvent& event) {
  if (event.kind == "zab.commit") {
    std::int64_t zxid = event.integer("zxid");
    auto digest = static_cast<std::uint64_t>(event.integer("digest"));
    auto [known, inserted] = committed_.try_emplace(zxid, CommittedTxn{digest, event.node});
    if (!inserted && known->second.digest != digest) {
      violate(node_name(event.node) + " committed a different txn at " + zxid_text(zxid) + " than " + node_name(known->second.first_server));
    }
  } else if (event.kind == "zab.established") {
    std::int64_t epoch = event.integer("epoch");
    std::int64_t history = event.integer("history_zxid");
    // The highest zxid committed anywhere in an earlier epoch must be in the new leader's history.
    auto earlier = committed_.lower_bound(epoch << 32);
    if (earlier == committed_.begin()) return;
    --earlier;
    if (earlier->first > history) {
      violate("txn " + zxid_text(earlier->first) + " committed by " + node_name(earlier->second.first_server) +
              " is missing from the history of " + node_name(event.node) + ", leader of epoch " + std::to_string(epoch) +
              " (its history ends at " + zxid_text(history) + "): a committed write was lost");
    }
  }
}

}  // namespace properties
