// naive-master-stable: source 002's anti-jitter promise. When /master goes away while its holder is
// still in touch (the demo's release, or a jitter short of the session timeout), the others react
// to the delete only after 5 s while the holder races at once, so the same server takes it back
// ("如果之前主机是本机,则立即抢主,否则延迟5s抢主").
//
// What the promise covers, and so what is blamed: mastership moves from A to B, where
//  - A stayed in touch with ZooKeeper throughout its mastership, from taking /master until B took
//    it: its process alive and unpaused, its client CONNECTED (client.state, layer zookeeper), and
//    a working path to the quorum: A and its server reach each other, the server (unless it is
//    the leader) and the leader reach each other, and the leader reaches a majority of the
//    ensemble both ways, all of them up and unpaused. A master that crashes, pauses, or is cut off
//    may lose its session or not hear of the delete in time (a client keeps CONNECTED for up to
//    two thirds of its session timeout after a cut, a follower for syncLimit ticks after losing
//    its leader): anti-jitter cannot prevent that move;
//  - A heard of the delete (its server fired A's NodeDeleted watch on /master) before B's winning
//    take began;
//  - B's winning take answers that delete: its cause (handleDataDeleted finding /master gone, at
//    once or 5 s before, traced as naive.master's `cause`) came after A's /master was deleted (the
//    first server to apply the delete, by zxid). A take queued at an earlier delete is no reaction
//    to this one: the demo's release timer and anti-jitter delay are both 5 s, so the others'
//    delayed takes, queued at the previous release, land around the next one, and one that finds
//    /master gone (NodeExists, then readData finds no node) takes it again at once. That race is
//    the demo's own (docs/recipes.md, source 002), not a promise;
//  - B's take is not its start-up take (start() races at once, anti-jitter or not);
//  - B has never held /master (in any process under its name: the demo compares RunningData by
//    name). The demo's masterData changes only on its own takes and checkMaster (handleDataChange
//    is empty), so a former master that lost /master without noticing (its session expired and it
//    came back to someone else's node, its NodeDeleted read already found the next master's node,
//    or, restarted, it read its previous process's node) still believes it was master, and at the
//    next delete races at once as the anti-jitter rule tells the last master to. That stale
//    belief is the demo's own flaw, not a broken promise. A hold counts whether or not its take
//    was traced: a create retried after a lost reply finds its own node and traces nothing, so the
//    owner session of each /master node is followed as well.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/Property.h"

namespace properties {

class NaiveMasterStable final : public Property {
 public:
  static constexpr std::string_view master_path = "/master";

  // `ensemble`: the ZooKeeper servers (a majority of them makes a quorum).
  NaiveMasterStable(sim::Simulation& sim, std::vector<sim::NodeId> ensemble);
  std::string_view name() const override { return "naive-master-stable"; }
  // Reads every kind (no kinds()): whether the master is still in touch is sampled at every event,
  // and a partition or pause shows at the first event after it, whatever its kind.
  void on_event(const sim::TraceEvent& event) override;

 private:
  struct Client {
    bool connected = false;
    sim::NodeId server = sim::no_node;    // the server it is connected to
    std::optional<std::int64_t> session;  // its ZooKeeper session, once connected
  };
  void record(const sim::TraceEvent& event);
  void onMaster(const sim::TraceEvent& event);
  // Checked at every event: the network and the nodes change only at fault events, which are
  // traced before they apply, so the next event sees every state.
  bool inTouch(sim::NodeId master) const;
  bool running(sim::NodeId node) const;
  bool linked(sim::NodeId one, sim::NodeId other) const;

  std::vector<sim::NodeId> ensemble_;
  std::map<sim::NodeId, Client> clients_;
  std::optional<sim::NodeId> leader_;                   // the last server to go LEADING, while it does
  std::optional<sim::NodeId> master_;                   // the last server to take /master
  std::string master_name_;
  sim::Instant took_at_{};                              // when it took it
  bool master_in_touch_ = false;                        // ... and it has been in touch since
  std::set<std::string> former_masters_;                // every server that has held /master
  std::map<std::int64_t, sim::NodeId> session_nodes_;   // every session a client connected with
  // The server whose session owns the current /master node, and whether it traced its take.
  std::optional<sim::NodeId> holder_;
  bool holder_traced_ = false;
  std::int64_t last_create_zxid_ = -1;
  std::map<std::int64_t, sim::Instant> told_deleted_;  // session -> its last NodeDeleted on /master
  std::int64_t last_delete_zxid_ = -1;                  // the newest delete of /master applied by any server
  std::optional<sim::Instant> deleted_at_;              // when the first server applied it
};

}  // namespace properties
