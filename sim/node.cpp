#include "sim/node.h"

#include <algorithm>

#include "sim/hash_fold.h"
#include "sim/network.h"

namespace sim {

void Scope::spawn(Task<void> task) {
  ELECTSIM_ASSERT(task.valid());
  auto handle = task.release();
  handle.promise().owner = this;
  EventToken start = sim_.schedule_resume(sim_.now(), handle, node_);
  children_.push_back(Child{handle, start});
}

void Scope::start(Task<void> task) {
  ELECTSIM_ASSERT(task.valid());
  ELECTSIM_ASSERT_MSG(sim_.current_node() == node_, "Scope::start from another node's event");
  auto handle = task.release();
  handle.promise().owner = this;
  children_.push_back(Child{handle, EventToken{}});
  sim_.resume_from_handler(handle, node_);  // it may finish, and leave children_, before this returns
}

void Scope::clear() {
  // Destroy in reverse spawn order, like locals. Destructors of the frames' awaiters cancel their
  // events; sockets they own close (with or without a FIN, as the node's stop mode says).
  std::vector<Child> children = std::move(children_);
  children_.clear();
  for (auto it = children.rbegin(); it != children.rend(); ++it) {
    sim_.cancel(it->start);
    it->handle.destroy();
  }
}

void Scope::task_finished(std::coroutine_handle<> handle, std::exception_ptr error) noexcept {
  auto it = std::find_if(children_.begin(), children_.end(), [&](const Child& child) { return child.handle == handle; });
  if (it != children_.end()) children_.erase(it);
  handle.destroy();
  if (error) sim_.report_failure(error, node_);
}

Node::Node(Simulation& sim, std::string name) : sim_(sim), id_(sim.node_count()), name_(std::move(name)) {}

Node::~Node() = default;

Scope& Node::processes() {
  ELECTSIM_ASSERT_MSG(processes_.has_value(), name_ + " is not running");
  return *processes_;
}

void Node::start() {
  ELECTSIM_ASSERT_MSG(state_ == State::down || state_ == State::powered_off, name_ + " is already running");
  state_ = State::up;
  starts_++;
  processes_.emplace(sim_, id_);
  sim_.trace().emit(id_, "node.start", {{"starts", starts_}});
  sim_.network().node_started(id_);
  on_start();
}

void Node::stop(State how) {
  ELECTSIM_ASSERT(how == State::stopping_loudly || how == State::stopping_silently);
  if (state_ != State::up) return;
  state_ = how;
  processes_.reset();
  on_stop();
  sim_.network().node_stopped(id_, how == State::stopping_silently);
  sim_.node_stopped(id_);
  state_ = how == State::stopping_silently ? State::powered_off : State::down;
}

void Node::crash() {
  sim_.trace().emit(id_, "node.crash");
  stop(State::stopping_loudly);
}

void Node::power_off() {
  sim_.trace().emit(id_, "node.power_off");
  stop(State::stopping_silently);
}

std::uint64_t Node::state_digest(bool crashed, bool power_loss) const {
  (void)power_loss;
  if (crashed || state_ != State::up) return hash_fold(0x646f776e, state_ == State::powered_off ? 1 : 0);
  return hash_fold(0x7570, paused() ? 1 : 0);
}

void Node::pause() {
  if (state_ != State::up || paused()) return;
  sim_.trace().emit(id_, "node.pause");
  sim_.set_paused(id_, true);
}

void Node::resume() {
  if (!paused()) return;
  sim_.trace().emit(id_, "node.resume");
  sim_.set_paused(id_, false);
}

}  // namespace sim
