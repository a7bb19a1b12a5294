// Fuzz target: the JSON Lines trace reader (harness/trace_reader.h). Any text must give records or a
// TraceError with a FILE:LINE:COLUMN position, never a crash or another exception; and what it
// accepts must round-trip through write_trace_line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "harness/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  harness::TraceReaderLimits limits;
  limits.line_bytes_max = 4096;  // small, so that the fuzzer reaches the limit too
  limits.records_max = 10'000;
  std::vector<harness::TraceRecord> records;
  try {
    records = harness::read_trace_text(input, "fuzz.jsonl", limits);
  } catch (const harness::TraceError& error) {
    fuzz::check_error_position(error.what(), "fuzz.jsonl", static_cast<int>(error.line()), static_cast<int>(error.column()), input, input);
    return 0;
  }
  std::string written;
  for (const harness::TraceRecord& record : records) {
    if (record.line == 0 || record.node.empty() || record.kind.empty() || record.t < 0) fuzz::bug("a record breaks its invariants", input);
    written += harness::write_trace_line(record) + "\n";
  }
  std::vector<harness::TraceRecord> again;
  try {
    harness::TraceReaderLimits roomy;
    again = harness::read_trace_text(written, "written.jsonl", roomy);
  } catch (const harness::TraceError& error) {
    fuzz::bug("written records do not read back: " + std::string(error.what()) + "\n--- written ---\n" + written, input);
  }
  if (again != records) fuzz::bug("read(write(records)) != records\n--- written ---\n" + written, input);
  return 0;
}
