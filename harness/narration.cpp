#include "harness/narration.h"

#include "harness/trace_text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

namespace harness {

namespace {

std::string format_time(sim::Instant time) { return clock_text(time); }

// "2.212243s": a time inside a sentence, as the time column writes it, without the padding.
std::string short_time(sim::Instant time) {
  std::string text = format_time(time);
  return text.substr(text.find_first_not_of(' '));
}

std::string trimmed(std::string_view text) {
  std::size_t first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  std::size_t last = text.find_last_not_of(' ');
  return std::string(text.substr(first, last - first + 1));
}

// Whether `text` names `name` as a whole word ("i1" is not in "i10").
bool mentions(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    std::size_t end = at + name.size();
    bool ends = end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
    if (starts && ends) return true;
  }
  return false;
}

// "41233" -> "41,233".
std::string with_commas(std::size_t value) {
  std::string digits = std::to_string(value);
  std::string text;
  for (std::size_t i = 0; i < digits.size(); i++) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return text;
}

std::string topic_list() {
  std::string expected;
  for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
    expected += (topic == 0 ? "" : ", ") + std::string(narration_topic_name(static_cast<NarrationTopic>(topic)));
  }
  return expected;
}

bool is_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
}

}  // namespace

std::string_view NarrationFilter::grammar() {
  return "a comma-separated list of topics (all, zk, latch, job, es, naive, session, watch, fault, property, net) and of "
         "from=TIME, to=TIME (as 2s, 1500ms, 2.5s) and nodes=NAME+NAME (as nodes=zk1+i2)";
}

NarrationFilter NarrationFilter::everything() {
  NarrationFilter filter;
  filter.topics_.set();
  filter.topics_.reset(static_cast<std::size_t>(NarrationTopic::net));
  return filter;
}

NarrationFilter NarrationFilter::parse(std::string_view list) {
  if (trimmed(list).empty()) return everything();
  NarrationFilter filter;
  bool any_topic = false;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = std::min(list.find(',', start), list.size());
    std::string item = trimmed(list.substr(start, comma - start));
    start = comma + 1;
    if (std::size_t equals = item.find('='); equals != std::string::npos) {
      std::string key = trimmed(std::string_view(item).substr(0, equals));
      std::string value = trimmed(std::string_view(item).substr(equals + 1));
      if (key == "from" || key == "to") {
        std::optional<sim::Duration> at = sim::parse_duration(value);
        if (!at) {
          throw std::invalid_argument("bad narration time '" + item + "': expected a time into the run such as " + key + "=2s, " + key + "=1500ms or " + key +
                                      "=2.5s");
        }
        (key == "from" ? filter.from_ : filter.to_) = *at;
        continue;
      }
      if (key == "nodes") {
        filter.nodes_.clear();
        std::size_t at = 0;
        while (at <= value.size()) {
          std::size_t plus = std::min(value.find('+', at), value.size());
          std::string name = trimmed(std::string_view(value).substr(at, plus - at));
          at = plus + 1;
          if (!is_name(name)) {
            throw std::invalid_argument("bad narration node list '" + item + "': expected node names joined by '+', as in nodes=zk1+i2");
          }
          filter.nodes_.push_back(name);
        }
        continue;
      }
      throw std::invalid_argument("unknown narration setting '" + item + "' (expected " + std::string(grammar()) + ")");
    }
    if (item.empty()) throw std::invalid_argument("empty item in the narration list '" + std::string(list) + "' (expected " + std::string(grammar()) + ")");
    if (item == "all") {
      filter.topics_ |= everything().topics_;
      any_topic = true;
      continue;
    }
    bool known = false;
    for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
      if (narration_topic_name(static_cast<NarrationTopic>(topic)) != item) continue;
      filter.topics_.set(topic);
      known = true;
    }
    if (!known) {
      throw std::invalid_argument("unknown narration topic '" + item + "' (expected all, " + topic_list() +
                                  "; or from=TIME, to=TIME, nodes=NAME+NAME)");
    }
    any_topic = true;
  }
  if (!any_topic) filter.topics_ = everything().topics_;
  if (filter.from_ && filter.to_ && *filter.to_ < *filter.from_) {
    throw std::invalid_argument("narration window from=" + sim::format_duration(*filter.from_) + " ends before it starts (to=" +
                                sim::format_duration(*filter.to_) + ")");
  }
  return filter;
}

bool NarrationFilter::wants(const NarratedEvent& event) const {
  for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
    if (topics_.test(topic) && event.about(static_cast<NarrationTopic>(topic))) return true;
  }
  return false;
}

bool NarrationFilter::wants_time(sim::Instant time) const {
  if (from_ && time < sim::epoch + *from_) return false;
  if (to_ && time > sim::epoch + *to_) return false;
  return true;
}

bool NarrationFilter::wants_node(std::string_view node, std::string_view text) const {
  if (nodes_.empty()) return true;
  return std::any_of(nodes_.begin(), nodes_.end(), [&](const std::string& name) { return node == name || mentions(text, name); });
}

std::string NarrationFilter::describe() const {
  std::string text;
  for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
    if (topics_.test(topic)) text += (text.empty() ? "" : ", ") + std::string(narration_topic_name(static_cast<NarrationTopic>(topic)));
  }
  if (from_) text += "; from " + sim::format_duration(*from_);
  if (to_) text += "; to " + sim::format_duration(*to_);
  if (!nodes_.empty()) {
    text += "; nodes ";
    for (std::size_t i = 0; i < nodes_.size(); i++) text += (i == 0 ? "" : "+") + nodes_[i];
  }
  return text;
}

void NarrationSink::on_attach(const sim::Simulation& sim) {
  narrator_.attach(sim);
  node_width_ = 4;
  for (const std::string& name : narrator_.node_names()) node_width_ = std::max(node_width_, name.size());
  causal_ = filter_.wants(NarrationTopic::property);
  origins_ = narrator_.node_names().size() + 1;
  frontiers_.assign(origins_, Frontier(origins_, -1));
  snapshots_.assign(origins_, nullptr);
  if (!warned_nodes_) {
    warned_nodes_ = true;
    for (const std::string& name : filter_.nodes()) {
      const std::vector<std::string>& names = narrator_.node_names();
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      std::string known;
      for (const std::string& each : names) known += (known.empty() ? "" : ", ") + each;
      out_ << "narration: nodes=" << name << " names no node of this run (its nodes: " << known << ")\n";
      lines_written_++;
    }
  }
}

NarrationSink::Frontier& NarrationSink::frontier(sim::NodeId node) {
  std::size_t index = node == sim::no_node || node >= origins_ - 1 ? origins_ - 1 : node;
  snapshots_[index] = nullptr;  // about to change, or read for a change
  return frontiers_[index];
}

void NarrationSink::merge(Frontier& into, const Frontier& from) {
  for (std::size_t origin = 0; origin < into.size() && origin < from.size(); origin++) into[origin] = std::max(into[origin], from[origin]);
}

void NarrationSink::track_causality(const sim::TraceEvent& event) {
  std::string_view kind = event.kind;
  auto key = [&] {
    return MessageKey{event.integer("connection"), event.integer("generation"), event.integer("direction"), event.integer("seq")};
  };
  if (kind == "net.send") {
    std::size_t index = event.node >= origins_ - 1 ? origins_ - 1 : event.node;
    if (!snapshots_[index]) snapshots_[index] = std::make_shared<const Frontier>(frontiers_[index]);
    in_flight_[key()] = snapshots_[index];
    return;
  }
  if (kind == "net.deliver" || kind == "net.drop") {
    auto sent = in_flight_.find(key());
    if (sent == in_flight_.end()) return;
    if (kind == "net.deliver" && event.node < origins_ - 1) merge(frontier(event.node), *sent->second);
    in_flight_.erase(sent);
    return;
  }
  if (kind == "net.links" && pending_links_fault_) {
    // The partition (or heal) just told reaches the nodes whose links it cuts, and those cut before.
    std::string_view cut = event.text("cut");
    const std::vector<std::string>& names = narrator_.node_names();
    std::vector<sim::NodeId> now_cut;
    for (sim::NodeId node = 0; node < names.size(); node++) {
      if (mentions(cut, names[node])) now_cut.push_back(node);
    }
    std::vector<sim::NodeId> affects = now_cut;
    for (sim::NodeId node : last_cut_) {
      if (std::find(affects.begin(), affects.end(), node) == affects.end()) affects.push_back(node);
    }
    std::sort(affects.begin(), affects.end());
    kept_[static_cast<std::size_t>(*pending_links_fault_)].affects = std::move(affects);
    last_cut_ = std::move(now_cut);
    pending_links_fault_.reset();
  }
}

void NarrationSink::keep(const Line& line) {
  std::int32_t id = static_cast<std::int32_t>(kept_.size());
  bool global = line.node_id == sim::no_node || line.node_id >= origins_ - 1;
  Frontier& mine = frontier(line.node_id);
  Kept kept{line, mine, {}};
  mine[global ? origins_ - 1 : line.node_id] = id;
  if (line.event.rank == NarrationRank::fault) {
    if (!global) {
      kept.affects.push_back(line.node_id);
    } else {
      // Every node, until net.links says whom it cut (when messages are not traced, it stays so).
      for (sim::NodeId node = 0; node + 1 < origins_; node++) {
        Frontier& into = frontier(node);
        into[origins_ - 1] = std::max(into[origins_ - 1], id);
        kept.affects.push_back(node);
      }
      pending_links_fault_ = id;
    }
  }
  kept_.push_back(std::move(kept));
}

void NarrationSink::on_event(const sim::TraceEvent& event) {
  std::string_view kind = event.kind;
  bool message = kind.starts_with("net.");
  if (message && causal_) track_causality(event);
  if (kind != "net.links" && pending_links_fault_) {
    // No net.links followed the partition: it stays a fault of every node.
    if (!message) pending_links_fault_.reset();
  }
  if (message && kind != "net.links" && !filter_.wants_messages()) return;  // traced for causality only
  std::optional<NarratedEvent> narrated = narrator_.narrate(event);
  if (!narrated) return;
  if (kind == "property.violation") {
    std::string property(event.text("property"));
    std::string message_text(event.text("message"));
    told_violations_.insert({event.time, property});
    flush_folds(event.time, true);
    if (filter_.wants(NarrationTopic::property)) tell_violation(event.time, property, message_text);
    return;
  }
  Line line{event.time, event.node, narrator_.node_name(event.node), std::move(*narrated)};
  if (causal_ && line.event.rank >= NarrationRank::step) keep(line);
  if (event.kind == "client.state") {
    sim::NodeId server = static_cast<sim::NodeId>(event.integer("server", sim::no_node));
    if (server != sim::no_node && server < origins_ - 1) servers_of_[event.node].insert(server);
  }
  tell(std::move(line));
}

void NarrationSink::finish(const std::vector<properties::Violation>& violations) {
  flush_folds(sim::instant_max, true);
  if (!filter_.wants(NarrationTopic::property)) return;
  for (const properties::Violation& violation : violations) {
    if (told_violations_.contains({violation.time, violation.property})) continue;
    told_violations_.insert({violation.time, violation.property});
    tell_violation(violation.time, violation.property, violation.message);
  }
}

std::string NarrationSink::shape_of(const Line& line) const {
  // The node, then the sentence with every number masked, except in node names: "adopts zk5's
  // vote ... round #" is one shape whatever the round.
  std::string shape = line.node;
  shape += '\x1f';
  const std::string& text = line.event.text;
  const std::vector<std::string>& names = narrator_.node_names();
  std::size_t at = 0;
  while (at < text.size()) {
    if (!std::isalnum(static_cast<unsigned char>(text[at]))) {
      shape += text[at++];
      continue;
    }
    std::size_t end = at;
    bool digit = false;
    while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) digit |= std::isdigit(static_cast<unsigned char>(text[end++])) != 0;
    std::string_view word(text.data() + at, end - at);
    if (digit && std::find(names.begin(), names.end(), word) == names.end()) {
      shape += '#';
    } else {
      shape += word;
    }
    at = end;
  }
  return shape;
}

void NarrationSink::tell(Line line) {
  last_told_ = std::max(last_told_, line.time);
  if (line.event.rank >= NarrationRank::change) {
    // A change is never folded; what its node repeated before it is told first (all of it, for a
    // change of no node: a partition).
    flush_folds(line.time, line.node_id == sim::no_node, line.node_id);
    emit_line(line);
    return;
  }
  if (line.time - last_sweep_ >= folding_gap / 2) {
    flush_folds(line.time, false);
    last_sweep_ = line.time;
  }
  std::string shape = shape_of(line);
  auto fold = folds_.find(shape);
  if (fold != folds_.end() && line.time - fold->second.last <= folding_gap) {
    Fold& open = fold->second;
    if (open.count == 0) open.first = line.time;
    open.count++;
    open.last = line.time;
    open.last_line = std::move(line);
    lines_folded_++;
    return;
  }
  if (fold != folds_.end()) flush_fold(fold, line.time);
  Fold fresh;
  fresh.first = line.time;
  fresh.last = line.time;
  emit_line(line);
  folds_.emplace(std::move(shape), std::move(fresh));
}

void NarrationSink::flush_fold(std::map<std::string, Fold>::iterator fold, sim::Instant now) {
  Fold& open = fold->second;
  if (open.count > 0) {
    // Told when the repeats ended, at the time of the sentence that ended them (so the time column
    // never goes back), with the span they covered.
    Line summary = std::move(open.last_line);
    std::string span = open.count == 1 ? "once more, at " + short_time(open.last)
                                       : with_commas(open.count) + " more times from " + short_time(open.first) + " to " + short_time(open.last);
    summary.event.text = "[repeated " + span + "; the last:] " + summary.event.text;
    summary.time = std::max(open.last, std::min(now, last_told_));
    emit_line(summary);
  }
  folds_.erase(fold);
}

void NarrationSink::flush_folds(sim::Instant now, bool all, sim::NodeId node) {
  // In the order the repeats ended, so the folded lines come out in time order among themselves.
  std::vector<std::pair<sim::Instant, std::map<std::string, Fold>::iterator>> ended;
  std::string prefix = node != sim::no_node ? narrator_.node_name(node) + '\x1f' : std::string();
  for (auto fold = folds_.begin(); fold != folds_.end(); ++fold) {
    bool ends = all || (node != sim::no_node ? fold->first.starts_with(prefix) : now - fold->second.last > folding_gap);
    if (ends) ended.emplace_back(fold->second.last, fold);
  }
  std::stable_sort(ended.begin(), ended.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [time, fold] : ended) flush_fold(fold, now);
}

void NarrationSink::emit_line(const Line& line) {
  if (!filter_.wants(line.event)) return;
  if (!filter_.wants_time(line.time)) return;
  if (!filter_.wants_node(line.node, line.event.text)) return;
  write(line);
}

void NarrationSink::write(const Line& line, std::string_view indent, std::string_view prefix) {
  std::string node = line.node;
  node.resize(std::max(node.size(), node_width_), ' ');
  out_ << indent << format_time(line.time) << "  " << node << "  " << prefix << line.event.text << "\n";
  lines_written_++;
}

void NarrationSink::tell_violation(sim::Instant time, const std::string& property, const std::string& message) {
  Line violation{time, sim::no_node, "-", NarratedEvent{0, "VIOLATION of " + property + ": " + message}};
  write(violation);
  if (!causal_) return;
  std::size_t left_out = 0;
  std::vector<std::string> relevant;
  std::vector<std::int32_t> chain = causal_chain(message, left_out, relevant);
  if (chain.empty()) return;
  out_ << "    what led to it:\n";
  lines_written_++;
  for (std::int32_t id : chain) write(kept_[static_cast<std::size_t>(id)].line, "    ");
  if (left_out > 0) {
    std::string nodes;
    for (const std::string& name : relevant) nodes += (nodes.empty() ? "" : "+") + name;
    out_ << "    (" << with_commas(left_out) << " earlier event" << (left_out == 1 ? "" : "s") << " of " << nodes
         << " in its causal past left out; --narrate=nodes=" << nodes << ",to=" << sim::format_duration(time - sim::epoch) << " tells them all)\n";
    lines_written_++;
  }
}

std::vector<std::int32_t> NarrationSink::causal_chain(const std::string& message, std::size_t& left_out, std::vector<std::string>& relevant_names) const {
  // The nodes the violation names; without any, every node.
  const std::vector<std::string>& names = narrator_.node_names();
  std::vector<bool> named(names.size(), false);
  std::vector<bool> relevant(names.size(), false);
  bool any = false;
  for (sim::NodeId node = 0; node < names.size(); node++) {
    if (!mentions(message, names[node])) continue;
    named[node] = relevant[node] = any = true;
  }
  if (!any) named.assign(names.size(), true), relevant.assign(names.size(), true);
  // ... and the servers their sessions used.
  for (sim::NodeId node = 0; node < names.size(); node++) {
    if (!named[node]) continue;
    auto servers = servers_of_.find(node);
    if (servers == servers_of_.end()) continue;
    for (sim::NodeId server : servers->second) relevant[server] = true;
  }
  for (sim::NodeId node = 0; node < names.size(); node++) {
    if (relevant[node]) relevant_names.push_back(names[node]);
  }

  // Everything kept that happened-before the named nodes' present state.
  std::vector<char> seen(kept_.size(), 0);
  std::vector<std::int32_t> stack;
  for (sim::NodeId node = 0; node < names.size(); node++) {
    if (!named[node]) continue;
    for (std::int32_t id : frontiers_[node]) {
      if (id >= 0 && !seen[static_cast<std::size_t>(id)]) seen[static_cast<std::size_t>(id)] = 1, stack.push_back(id);
    }
  }
  while (!stack.empty()) {
    std::int32_t id = stack.back();
    stack.pop_back();
    for (std::int32_t before : kept_[static_cast<std::size_t>(id)].before) {
      if (before >= 0 && !seen[static_cast<std::size_t>(before)]) seen[static_cast<std::size_t>(before)] = 1, stack.push_back(before);
    }
  }

  // Of those, the ones about the nodes that matter, in tiers: faults that reached them; changes of
  // the named nodes; changes of their servers; steps of the named nodes. Newest first in a tier.
  constexpr int tiers = 4;
  std::vector<std::int32_t> tier[tiers];
  std::size_t candidates = 0;
  for (std::int32_t id = static_cast<std::int32_t>(kept_.size()) - 1; id >= 0; id--) {
    if (!seen[static_cast<std::size_t>(id)]) continue;
    const Kept& kept = kept_[static_cast<std::size_t>(id)];
    NarrationRank rank = kept.line.event.rank;
    sim::NodeId node = kept.line.node_id;
    bool on_named = node < names.size() && named[node];
    bool on_relevant = node < names.size() && relevant[node];
    if (rank == NarrationRank::fault) {
      bool reaches = on_relevant || std::any_of(kept.affects.begin(), kept.affects.end(), [&](sim::NodeId n) { return n < names.size() && relevant[n]; });
      if (!reaches) continue;
      tier[0].push_back(id);
    } else if (rank == NarrationRank::change && on_named) {
      tier[1].push_back(id);
    } else if (rank == NarrationRank::change && on_relevant) {
      tier[2].push_back(id);
    } else if (on_named) {
      tier[3].push_back(id);
    } else {
      continue;
    }
    candidates++;
  }
  std::vector<std::int32_t> chosen;
  std::size_t faults_max = context_told_max / 2;
  for (int t = 0; t < tiers; t++) {
    std::size_t taken = 0;
    for (std::int32_t id : tier[t]) {
      if (chosen.size() >= context_told_max || (t == 0 && taken >= faults_max)) break;
      chosen.push_back(id);
      taken++;
    }
  }
  std::sort(chosen.begin(), chosen.end());
  left_out = candidates - chosen.size();
  return chosen;
}

}  // namespace harness
