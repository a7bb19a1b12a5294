// The JSON Lines trace of a run (`--trace`), bounded in bytes. A trace grows about 17 MB a second of
// wall time on a busy scenario: unbounded, a day-long ElasticJob run would fill a disk (27 GB before
// --max-events stops it). At the bound the sink writes one last line saying so, writes nothing more,
// and asks the simulation to stop; the runner reports the limit `max-trace-size` like any other.
#pragma once

#include <cstdint>
#include <ostream>
#include <streambuf>

#include "sim/simulation.h"
#include "sim/trace.h"

namespace harness {

// Counts the bytes written through it into another stream buffer (unbuffered itself: the target
// buffers).
class CountingBuffer final : public std::streambuf {
 public:
  explicit CountingBuffer(std::streambuf* target) : target_(target) {}
  std::uint64_t bytes() const { return bytes_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;
  int sync() override { return target_->pubsync(); }

 private:
  std::streambuf* target_;
  std::uint64_t bytes_ = 0;
};

class TraceFileSink final : public sim::TraceSink {
 public:
  // `bytes_max` 0: no bound.
  TraceFileSink(sim::Simulation& sim, std::ostream& out, std::uint64_t bytes_max);
  void on_event(const sim::TraceEvent& event) override;
  bool reads_sites() const override { return true; }

  // The bound was reached: the trace ends there, and the run was asked to stop.
  bool full() const { return full_; }
  std::uint64_t bytes() const { return counter_.bytes(); }
  std::uint64_t bytes_max() const { return bytes_max_; }

 private:
  sim::Simulation& sim_;
  std::ostream& out_;
  CountingBuffer counter_;
  std::ostream counted_;
  sim::JsonLinesSink lines_;
  std::uint64_t bytes_max_;
  bool full_ = false;
};

}  // namespace harness
