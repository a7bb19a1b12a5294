// Nodes own their coroutines. A node is one machine running one process: a ZooKeeper server, a job
// instance, an Elasticsearch node.
//
//  - crash():     the process dies. Its coroutines are destroyed (volatile state gone) and the
//                 operating system closes its connections: peers see the close one latency later.
//  - power_off(): the machine dies. Same for the node itself, but nothing is sent: peers find out
//                 by their own timeouts.
//  - restart():   the node's start routine runs again over its persistent state.
//  - pause():     a GC stall or SIGSTOP. Coroutines and timers freeze, nothing is sent or processed;
//                 resume() carries on with stale beliefs, and every timer that came due meanwhile
//                 fires at once.
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "sim/simulation.h"
#include "sim/task.h"

namespace sim {

// Structured concurrency: a Scope owns the coroutines spawned into it. Destroying (or clearing) the
// scope destroys them, and with them every frame they were awaiting. A coroutine must never clear
// the scope it runs in; it signals its parent instead.
class Scope final : public TaskOwner {
 public:
  Scope(Simulation& sim, NodeId node) : sim_(sim), node_(node) {}
  ~Scope() { clear(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // Starts `task` at the current instant (as a new event, never inline).
  void spawn(Task<void> task);
  // Starts `task` now, inline: for a callback run by an event of its own (never from a coroutine)
  // that hands its work on to a coroutine, as a coroutine resumed by that event would go on.
  void start(Task<void> task);
  void clear();
  std::size_t size() const { return children_.size(); }
  NodeId node() const { return node_; }

 private:
  struct Child {
    std::coroutine_handle<> handle;
    EventToken start;
  };
  void task_finished(std::coroutine_handle<> handle, std::exception_ptr error) noexcept override;

  Simulation& sim_;
  NodeId node_;
  std::vector<Child> children_;
};

class Node {
 public:
  enum class State : std::uint8_t { down, up, powered_off, stopping_loudly, stopping_silently };

  Node(Simulation& sim, std::string name);
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  NodeId id() const { return id_; }
  const std::string& name() const { return name_; }
  Simulation& sim() const { return sim_; }
  State state() const { return state_; }
  bool up() const { return state_ == State::up; }
  bool paused() const { return sim_.node_paused(id_); }
  // The machine is on (the process may be down). A powered-off machine answers nothing at all.
  bool machine_on() const { return state_ != State::powered_off && state_ != State::stopping_silently; }
  std::uint32_t starts() const { return starts_; }

  // ---- faults (called by the harness) ----
  void start();  // first start and every restart
  void crash();
  void power_off();
  void pause();
  void resume();

  // The processes of the current incarnation.
  Scope& processes();
  void spawn(Task<void> task) { processes().spawn(std::move(task)); }

  // Tells sockets whether closing now sends a FIN (process exit) or nothing (power loss).
  bool closing_silently() const { return state_ == State::stopping_silently; }

  // The systematic search's view of this node's state (harness/systematic.h), for pruning points
  // that lead to the same state: with `crashed`, what would be left if the process crashed now (a
  // power loss with `power_loss`). By default: whether it runs and is paused; models that persist
  // anything, or hold state that decides what happens next, say more.
  virtual std::uint64_t state_digest(bool crashed, bool power_loss) const;

 protected:
  // Spawns the node's processes over its persistent state.
  virtual void on_start() = 0;
  // Drops volatile state after the processes are destroyed.
  virtual void on_stop() {}

 private:
  void stop(State how);

  Simulation& sim_;
  NodeId id_;
  std::string name_;
  State state_ = State::down;
  std::uint32_t starts_ = 0;
  std::optional<Scope> processes_;

  friend class Simulation;
  void set_id(NodeId id) { id_ = id; }
};

}  // namespace sim
