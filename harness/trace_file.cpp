#include "harness/trace_file.h"

#include <nlohmann/json.hpp>

namespace harness {

CountingBuffer::int_type CountingBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  int_type written = target_->sputc(traits_type::to_char_type(c));
  if (!traits_type::eq_int_type(written, traits_type::eof())) bytes_++;
  return written;
}

std::streamsize CountingBuffer::xsputn(const char* text, std::streamsize count) {
  std::streamsize written = target_->sputn(text, count);
  bytes_ += static_cast<std::uint64_t>(written);
  return written;
}

TraceFileSink::TraceFileSink(sim::Simulation& sim, std::ostream& out, std::uint64_t bytes_max)
    : sim_(sim), out_(out), counter_(out.rdbuf()), counted_(&counter_), lines_(sim, counted_), bytes_max_(bytes_max) {}

void TraceFileSink::on_event(const sim::TraceEvent& event) {
  if (full_) return;
  lines_.on_event(event);
  // A write the target refused (a full disk) must fail the file's commit, as a direct write would.
  if (!counted_) out_.setstate(std::ios::badbit);
  if (bytes_max_ == 0 || counter_.bytes() < bytes_max_) return;
  full_ = true;
  nlohmann::ordered_json last{{"t", (event.time - sim::epoch).count()},
                              {"node", "sim"},
                              {"kind", "trace.limit"},
                              {"bytes", counter_.bytes()},
                              {"max_trace_size", bytes_max_},
                              {"why", "the trace reached --max-trace-size; the run stopped here"}};
  counted_ << last.dump() << '\n';
  if (!counted_) out_.setstate(std::ios::badbit);
  sim_.request_stop();
}

}  // namespace harness
