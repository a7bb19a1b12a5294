// Failure files written off the simulation threads. Each file is still written whole or not at all
// and synced (atomic_file.h), but its two fsyncs (the file, then its directory) happen on a thread
// of their own: in a worker they stalled a simulation for about a millisecond a failure, 3% of an
// ElasticJob sweep's wall time (about one run in ten fails). The thread mostly waits on the disk,
// so it takes little from the workers' cores.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace harness {

class FailureWriter {
 public:
  FailureWriter();
  // Waits for every file submitted (finish()).
  ~FailureWriter();
  FailureWriter(const FailureWriter&) = delete;
  FailureWriter& operator=(const FailureWriter&) = delete;

  // Queues `content` for `path`; `what` names it in an error message ("seed 22 failed full-coverage").
  void submit(std::string path, std::string content, std::string what);
  // Returns once every submitted file is written or has failed; a failure was reported on stderr
  // ("explore: seed 22 failed full-coverage but its failure file was not written: ..."). Idempotent.
  void finish();
  // After finish(): whether `path` was submitted and could not be written.
  bool failed(const std::string& path) const;
  // Files queued at most at once: a sweep that fails faster than the disk syncs waits for it
  // rather than holding every failure in memory.
  static constexpr std::size_t max_queued = 256;

 private:
  struct Job {
    std::string path;
    std::string content;
    std::string what;
  };
  void run();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::set<std::string> failed_;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace harness
