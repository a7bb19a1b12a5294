#include "harness/diagram.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "harness/diagram_page.h"
#include "sim/node.h"

namespace harness {

namespace {

constexpr std::int64_t global_lane = -1;

std::string role_of(std::string_view name) {
  std::size_t digits = name.find_first_of("0123456789");
  return digits == std::string_view::npos ? "node" : std::string(name.substr(0, digits));
}

std::string hex_session(std::int64_t session) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(session));
  return text;
}

}  // namespace

void DiagramSink::on_attach(const sim::Simulation& sim) {
  lanes_.clear();
  for (sim::NodeId id = 0; id < sim.node_count(); id++) lanes_.push_back(sim.node(id).name());
  cut_.assign(lanes_.size(), std::string());
}

std::optional<std::size_t> DiagramSink::lane_of(std::string_view name) const {
  auto found = std::find(lanes_.begin(), lanes_.end(), name);
  if (found == lanes_.end()) return std::nullopt;
  return static_cast<std::size_t>(found - lanes_.begin());
}

void DiagramSink::open_band(std::size_t lane, std::string kind, std::string key, std::string label, sim::Instant at) {
  close_band(lane, key, at);  // a new state ends the previous one under the same key
  open_bands_[{lane, std::move(key)}] = bands_.size();
  bands_.push_back(Band{lane, std::move(kind), std::move(label), at, std::nullopt});
}

void DiagramSink::close_band(std::size_t lane, const std::string& key, sim::Instant at) {
  auto open = open_bands_.find({lane, key});
  if (open == open_bands_.end()) return;
  bands_[open->second].to = at;
  open_bands_.erase(open);
}

void DiagramSink::close_lane_bands(std::size_t lane, sim::Instant at, bool keep_beliefs) {
  // A crash ends every state of the process; a cut link is the network's, and outlives it.
  std::vector<std::string> keys;
  for (const auto& [key, index] : open_bands_) {
    if (key.first != lane || key.second == "cut") continue;
    if (keep_beliefs && key.second != "down") continue;
    keys.push_back(key.second);
  }
  for (const std::string& key : keys) close_band(lane, key, at);
}

void DiagramSink::mark(std::size_t lane, sim::Instant at, std::string kind, std::string label) {
  if (marks_.size() >= marks_max) {
    marks_skipped_++;
    return;
  }
  marks_.push_back(Mark{lane, at, std::move(kind), std::move(label)});
}

void DiagramSink::on_event(const sim::TraceEvent& event) {
  std::string_view kind = event.kind;
  if (kind == "net.links") {
    on_links(event);
    return;
  }
  if (kind.starts_with("net.")) {
    on_message_event(event);
    return;
  }
  if (kind == "property.violation") {
    violations_seen_.emplace_back(event.time, std::string(event.text("property")) + ": " + std::string(event.text("message")));
    return;
  }
  if (event.node == sim::no_node || event.node >= lanes_.size()) {
    if (kind.starts_with("fault.")) mark(static_cast<std::size_t>(global_lane), event.time, "fault", std::string(kind.substr(6)));
    return;
  }
  on_state_event(event, event.node);
}

void DiagramSink::on_state_event(const sim::TraceEvent& event, std::size_t lane) {
  std::string_view kind = event.kind;
  sim::Instant at = event.time;
  if (kind == "zk.state") {
    std::string state(event.text("state"));
    open_band(lane, "zk-" + state, "zk", state + " (currentEpoch " + std::to_string(event.integer("epoch")) + ")", at);
  } else if (kind == "fle.decide") {
    mark(lane, at, "state", "decides: zk" + std::to_string(event.integer("leader")) + " leads (" + std::string(event.text("how")) + ")");
  } else if (kind == "zab.established") {
    mark(lane, at, "state", "leads epoch " + std::to_string(event.integer("epoch")) + " (NEWLEADER acked by a quorum)");
  } else if (kind == "zab.leader_shutdown" || kind == "zab.follower_lost_leader") {
    mark(lane, at, "state", std::string(kind.substr(4)) + ": " + std::string(event.text("reason")));
  } else if (kind == "latch.leader" || kind == "selector.leader") {
    std::string path(event.text("path"));
    open_band(lane, std::string(kind.substr(0, kind.find('.'))) + "-leader", "leader:" + path, std::string(kind) + " " + path, at);
  } else if (kind == "latch.not_leader" || kind == "selector.released") {
    close_band(lane, "leader:" + std::string(event.text("path")), at);
  } else if (kind == "job.leader") {
    std::string job(event.text("job"));
    open_band(lane, "job-leader", "job:" + job, "job leader of " + job, at);
  } else if (kind == "job.not_leader") {
    close_band(lane, "job:" + std::string(event.text("job")), at);
  } else if (kind == "job.exec.start" || kind == "job.exec.end") {
    std::string key = "exec:" + std::string(event.text("job")) + "/" + std::to_string(event.integer("item"));
    if (kind == "job.exec.start") open_band(lane, "exec", key, "job " + std::string(event.text("job")) + " item " + std::to_string(event.integer("item")), at);
    else close_band(lane, key, at);
  } else if (kind == "job.sharding") {
    mark(lane, at, "job", "sharding of " + std::string(event.text("job")) + ": " + std::string(event.text("assignment")));
  } else if (kind == "es.commit" && !open_bands_.contains({lane, "es-master"})) {
    // As es-single-master reads it: a node acts as master from its first commit as master (a node
    // that elected itself commits before it applies and says so), not from its later es.master.
    open_band(lane, "es-master", "es-master", "Elasticsearch master: commits version " + std::to_string(event.integer("version")), at);
    mark(lane, at, "es", "commit v" + std::to_string(event.integer("version")));
  } else if (kind == "es.master") {
    if (!event.boolean("master")) {
      close_band(lane, "es-master", at);
    } else if (!open_bands_.contains({lane, "es-master"})) {
      open_band(lane, "es-master", "es-master", "Elasticsearch master: " + std::string(event.text("what")), at);
    }
  } else if (kind == "es.elected" || kind == "es.commit" || kind == "es.rejoin" || kind == "es.fault_detection" || kind == "es.publish_failed") {
    std::string detail = kind == "es.commit" ? "v" + std::to_string(event.integer("version"))
                       : kind == "es.elected" ? std::string(event.text("master")) : std::string(event.text("reason"));
    mark(lane, at, "es", std::string(kind.substr(3)) + " " + detail);
  } else if (kind == "naive.master") {
    open_band(lane, "naive-master", "naive", "holds /master", at);
  } else if (kind == "naive.release") {
    close_band(lane, "naive", at);
  } else if (kind == "node.crash" || kind == "node.power_off") {
    close_lane_bands(lane, at, false);
    open_band(lane, "down", "down", kind == "node.crash" ? "process crashed" : "machine powered off", at);
  } else if (kind == "node.start") {
    close_band(lane, "down", at);
  } else if (kind == "node.pause") {
    open_band(lane, "paused", "paused", "paused (frozen, with stale beliefs)", at);
  } else if (kind == "node.resume") {
    close_band(lane, "paused", at);
  } else if (kind.starts_with("fault.")) {
    mark(lane, at, "fault", std::string(kind.substr(6)));
  } else if (kind == "client.state") {
    mark(lane, at, "session", std::string(event.text("layer")) + " " + std::string(event.text("state")));
    // A leader belief held without a connection is not counted by the checkers (live, unpaused,
    // connected): the lane says when its ZooKeeper connection is down, so the picture agrees.
    if (event.text("layer") == "zookeeper") {
      if (event.text("state") == "CONNECTED") {
        close_band(lane, "disconnected", at);
      } else if (!open_bands_.contains({lane, "disconnected"})) {
        open_band(lane, "disconnected", "disconnected", "not connected to ZooKeeper: " + std::string(event.text("state")), at);
      }
    }
  } else if (kind == "session.expire") {
    mark(lane, at, "session", "expires session " + hex_session(event.integer("session")));
  } else if (kind == "watch.fire") {
    mark(lane, at, "watch", "watch fires: " + std::string(event.text("type")) + " " + std::string(event.text("path")));
  }
}

void DiagramSink::on_message_event(const sim::TraceEvent& event) {
  MessageKey key{event.integer("connection"), event.integer("generation"), event.integer("direction"), event.integer("seq")};
  if (event.kind == "net.send") {
    std::optional<std::size_t> to = lane_of(event.text("to"));
    if (!to || event.node >= lanes_.size()) return;
    if (messages_.size() >= messages_max) {
      messages_skipped_++;
      return;
    }
    in_flight_[key] = messages_.size();
    messages_.push_back(TracedMessage::sent_by(event, event.node, *to));
    return;
  }
  auto sent = in_flight_.find(key);
  if (sent == in_flight_.end()) return;  // beyond messages_max
  messages_[sent->second].ended(event);
  in_flight_.erase(sent);
}

void DiagramSink::on_links(const sim::TraceEvent& event) {
  // "a>b,c;d>a": whom each node cannot send to. Each lane's band says both directions.
  std::vector<std::set<std::string>> cannot_send(lanes_.size()), cannot_hear(lanes_.size());
  std::string_view cut = event.text("cut");
  while (!cut.empty()) {
    std::string_view entry = cut.substr(0, cut.find(';'));
    cut = entry.size() < cut.size() ? cut.substr(entry.size() + 1) : std::string_view();
    std::size_t arrow = entry.find('>');
    std::optional<std::size_t> from = lane_of(entry.substr(0, arrow));
    std::string_view targets = entry.substr(arrow + 1);
    while (from && !targets.empty()) {
      std::string_view target = targets.substr(0, targets.find(','));
      targets = target.size() < targets.size() ? targets.substr(target.size() + 1) : std::string_view();
      if (std::optional<std::size_t> to = lane_of(target)) {
        cannot_send[*from].insert(std::string(target));
        cannot_hear[*to].insert(lanes_[*from]);
      }
    }
  }
  for (std::size_t lane = 0; lane < lanes_.size(); lane++) {
    auto join = [](const std::set<std::string>& names) {
      std::string text;
      for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
      return text;
    };
    std::string label;
    if (!cannot_send[lane].empty()) label += "cannot send to " + join(cannot_send[lane]);
    if (!cannot_hear[lane].empty()) label += (label.empty() ? "" : "; ") + std::string("cannot hear from ") + join(cannot_hear[lane]);
    if (label == cut_[lane]) continue;
    cut_[lane] = label;
    if (label.empty()) {
      close_band(lane, "cut", event.time);
      continue;
    }
    // Shade heavily only the side that lost most of its peers: when i1 is isolated, every other
    // node also loses its link to i1, but a diagram shading them all alike would hide who is cut off.
    std::set<std::string> lost = cannot_send[lane];
    lost.insert(cannot_hear[lane].begin(), cannot_hear[lane].end());
    bool most = 2 * lost.size() > lanes_.size() - 1;
    open_band(lane, most ? "cut" : "cut-some", "cut", label, event.time);
  }
}

nlohmann::ordered_json DiagramSink::data(sim::Instant end, const std::string& title, const std::vector<properties::Violation>& violations) const {
  nlohmann::ordered_json json;
  json["title"] = title;
  json["end"] = sim::nanos(end);
  nlohmann::ordered_json lanes = nlohmann::ordered_json::array();
  for (const std::string& name : lanes_) lanes.push_back({{"name", name}, {"role", role_of(name)}});
  json["lanes"] = lanes;
  nlohmann::ordered_json bands = nlohmann::ordered_json::array();
  for (const Band& band : bands_) {
    bands.push_back({band.lane, band.kind, band.label, sim::nanos(band.from), sim::nanos(band.to.value_or(end))});
  }
  json["bands"] = bands;  // [lane, kind, label, from, to]
  nlohmann::ordered_json marks = nlohmann::ordered_json::array();
  for (const Mark& mark : marks_) {
    std::int64_t lane = mark.lane == static_cast<std::size_t>(global_lane) ? global_lane : static_cast<std::int64_t>(mark.lane);
    marks.push_back({lane, sim::nanos(mark.time), mark.kind, mark.label});
  }
  json["marks"] = marks;  // [lane or -1 for all, time, kind, label]
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const Message& message : messages_) {
    nlohmann::ordered_json received = message.received ? nlohmann::ordered_json(sim::nanos(*message.received)) : nlohmann::ordered_json(nullptr);
    std::string lost = message.received || !message.lost.empty() ? message.lost : "still in flight at the end (held by a cut link, or its connection was gone)";
    messages.push_back({message.from, message.to, sim::nanos(message.sent), received, message.category, message.heartbeat, message.what, lost});
  }
  json["messages"] = messages;  // [from, to, sent, received or null, category, heartbeat, what, lost reason or ""]
  std::set<std::pair<std::int64_t, std::string>> seen;
  nlohmann::ordered_json told = nlohmann::ordered_json::array();
  for (const auto& [time, text] : violations_seen_) {
    if (seen.insert({sim::nanos(time), text}).second) told.push_back({sim::nanos(time), text});
  }
  for (const properties::Violation& violation : violations) {
    std::string text = violation.property + ": " + violation.message;
    if (seen.insert({sim::nanos(violation.time), text}).second) told.push_back({sim::nanos(violation.time), text});
  }
  json["violations"] = told;  // [time, "property: message"]
  json["skipped"] = {{"messages", messages_skipped_}, {"marks", marks_skipped_}};
  return json;
}

void DiagramSink::write_html(std::ostream& out, sim::Instant end, const std::string& title,
                             const std::vector<properties::Violation>& violations) const {
  out << diagram_page(data(end, title, violations));
}

}  // namespace harness
