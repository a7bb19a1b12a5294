// The waiting machinery under every blocking primitive.
//
// A WaitGroup is one suspended co_await. It may wait on several sources at once (first_of) and on a
// deadline. The first source to fire wins: it schedules the coroutine's resumption at the current
// instant (never inline, so a notifier is never re-entered by the code it wakes) and cancels the
// deadline; later sources see the group as fired and skip it. If the deadline's event comes first,
// the group resumes with no source fired: a timeout.
//
// Sources keep their waiters in an intrusive WaitList of WaitEntry records that live in the
// awaiter, inside the coroutine frame: waiting allocates nothing, and destroying a frame (a crash)
// unlinks its entries and cancels its deadline.
#pragma once

#include <coroutine>

#include "sim/assert.h"
#include "sim/simulation.h"

namespace sim {

class WaitGroup {
 public:
  explicit WaitGroup(Simulation& sim) : sim_(sim) {}
  ~WaitGroup() { sim_.cancel(pending_); }
  WaitGroup(const WaitGroup&) = delete;
  WaitGroup& operator=(const WaitGroup&) = delete;

  void suspend(std::coroutine_handle<> handle) {
    handle_ = handle;
    node_ = sim_.current_node();
    fired_ = -1;
  }
  void arm_deadline(Instant deadline) {
    ELECTSIM_ASSERT(handle_);
    pending_ = sim_.schedule_resume(deadline < sim_.now() ? sim_.now() : deadline, handle_, node_);
  }
  bool fired() const { return fired_ >= 0; }
  // Which source woke the group, or -1 when its deadline did.
  int fired_index() const { return fired_; }

  // Called by a source: resume the waiter at the current instant. False if the group already fired.
  bool wake(int index) {
    if (fired_ >= 0) return false;
    fired_ = index;
    sim_.cancel(pending_);
    pending_ = sim_.schedule_resume(sim_.now(), handle_, node_);
    return true;
  }

  // From a top-level event handler only (the network's deliveries): resume right away unless the
  // node is paused, saving one trip through the queue. `this` may be gone when it returns.
  bool wake_from_handler(int index) {
    if (fired_ >= 0) return false;
    fired_ = index;
    sim_.cancel(pending_);
    if (sim_.node_paused(node_)) {
      pending_ = sim_.schedule_resume(sim_.now(), handle_, node_);
      return true;
    }
    Simulation& sim = sim_;
    std::coroutine_handle<> handle = handle_;
    NodeId node = node_;
    sim.resume_from_handler(handle, node);
    return true;
  }

  Simulation& sim() const { return sim_; }

 private:
  Simulation& sim_;
  std::coroutine_handle<> handle_;
  NodeId node_ = no_node;
  int fired_ = -1;
  EventToken pending_;
};

class WaitList;

struct WaitEntry {
  WaitGroup* group = nullptr;
  int index = 0;
  void* slot = nullptr;  // where a Queue hands over its item; null for "tell me when ready"
  WaitEntry* prev = nullptr;
  WaitEntry* next = nullptr;
  WaitList* list = nullptr;

  WaitEntry() = default;
  WaitEntry(const WaitEntry&) = delete;
  WaitEntry& operator=(const WaitEntry&) = delete;
  ~WaitEntry() { unlink(); }
  inline void unlink();
  bool linked() const { return list != nullptr; }
};

class WaitList {
 public:
  WaitList() = default;
  WaitList(const WaitList&) = delete;
  WaitList& operator=(const WaitList&) = delete;
  ~WaitList() {
    while (head_ != nullptr) head_->unlink();
  }

  bool empty() const { return head_ == nullptr; }
  WaitEntry* front() const { return head_; }

  void push_back(WaitEntry& entry) {
    ELECTSIM_ASSERT(!entry.linked());
    entry.list = this;
    entry.prev = tail_;
    entry.next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = &entry;
    } else {
      head_ = &entry;
    }
    tail_ = &entry;
  }

  // Wakes every waiter (each resumes at the current instant, in the order they started waiting).
  void wake_all() {
    while (head_ != nullptr) {
      WaitEntry* entry = head_;
      entry->unlink();
      entry->group->wake(entry->index);
    }
  }

  // Wakes the first waiter that has not already been woken by another source. False if none.
  bool wake_one() {
    while (head_ != nullptr) {
      WaitEntry* entry = head_;
      entry->unlink();
      if (entry->group->wake(entry->index)) return true;
    }
    return false;
  }

 private:
  friend struct WaitEntry;
  WaitEntry* head_ = nullptr;
  WaitEntry* tail_ = nullptr;
};

inline void WaitEntry::unlink() {
  if (list == nullptr) return;
  if (prev != nullptr) {
    prev->next = next;
  } else {
    list->head_ = next;
  }
  if (next != nullptr) {
    next->prev = prev;
  } else {
    list->tail_ = prev;
  }
  prev = next = nullptr;
  list = nullptr;
}

// Anything a coroutine can wait for: it says whether it is ready now and keeps a list of waiters.
template <class S>
concept Waitable = requires(S& source) {
  { source.ready() } -> std::convertible_to<bool>;
  { source.wait_list() } -> std::same_as<WaitList&>;
};

// Waits for one source, optionally until a deadline. Resumes with true when the source fired (or was
// ready at once), false on timeout.
// (Not constrained with Waitable: sources name WaitAwaiter<Self> while still incomplete.)
template <class Source>
class WaitAwaiter {
 public:
  WaitAwaiter(Simulation& sim, Source& source, std::optional<Instant> deadline)
      : group_(sim), source_(source), deadline_(deadline) {}
  WaitAwaiter(const WaitAwaiter&) = delete;

  bool await_ready() { return source_.ready(); }
  void await_suspend(std::coroutine_handle<> handle) {
    group_.suspend(handle);
    entry_.group = &group_;
    entry_.index = 0;
    source_.wait_list().push_back(entry_);
    if (deadline_) group_.arm_deadline(*deadline_);
  }
  bool await_resume() {
    entry_.unlink();
    return group_.fired() || source_.ready();
  }

 private:
  WaitGroup group_;
  WaitEntry entry_;
  Source& source_;
  std::optional<Instant> deadline_;
};

}  // namespace sim
