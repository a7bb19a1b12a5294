#include "harness/failure_writer.h"

#include <iostream>

#include "harness/atomic_file.h"

namespace harness {

FailureWriter::FailureWriter() : thread_([this] { run(); }) {}

FailureWriter::~FailureWriter() { finish(); }

void FailureWriter::submit(std::string path, std::string content, std::string what) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.size() < max_queued; });
  queue_.push_back(Job{std::move(path), std::move(content), std::move(what)});
  changed_.notify_all();
}

void FailureWriter::finish() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    changed_.notify_all();
  }
  // The thread leaves only once the queue is empty, so joining it waits for every file.
  if (thread_.joinable()) thread_.join();
}

bool FailureWriter::failed(const std::string& path) const {
  std::lock_guard lock(mutex_);
  return failed_.contains(path);
}

void FailureWriter::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    Job job = std::move(queue_.front());
    queue_.pop_front();
    changed_.notify_all();  // a submit waiting for room
    lock.unlock();
    std::string error;
    try {
      write_file_atomically(job.path, job.content);
    } catch (const std::exception& failure) {
      error = failure.what();
    }
    if (!error.empty()) {
      // One write of the whole line, so it does not interleave with progress lines.
      std::string line = "explore: " + job.what + " but its failure file was not written: " + error + "\n";
      std::cerr.write(line.data(), static_cast<std::streamsize>(line.size()));
    }
    lock.lock();
    if (!error.empty()) failed_.insert(job.path);
  }
}

}  // namespace harness
