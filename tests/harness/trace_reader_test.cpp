// The JSON Lines trace reader: records, and errors with FILE:LINE:COLUMN for every way a line can be
// wrong.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/trace_reader.h"

namespace {

using harness::read_trace_text;
using harness::TraceError;
using harness::TraceRecord;

std::string error_of(const std::string& text, harness::TraceReaderLimits limits = {}) {
  try {
    read_trace_text(text, "t.jsonl", limits);
  } catch (const TraceError& error) {
    return error.what();
  }
  return "no error";
}

TEST(TraceReader, ReadsEventsWithTheirFields) {
  std::vector<TraceRecord> records = read_trace_text(
      "{\"t\":0,\"node\":\"zk1\",\"kind\":\"node.start\",\"starts\":1}\n"
      "\n"
      "{\"t\":1500000,\"node\":\"sim\",\"kind\":\"fault.heal\",\"target\":\"\",\"ok\":true,\"delta\":-3}\r\n"
      "{\"t\":1500000,\"node\":\"i1\",\"kind\":\"latch.leader\",\"session\":18446744073709551615}",
      "t.jsonl");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].node, "zk1");
  EXPECT_EQ(records[0].kind, "node.start");
  EXPECT_EQ(records[0].integer("starts"), 1);
  EXPECT_EQ(records[0].line, 1u);
  EXPECT_EQ(records[1].time(), sim::epoch + std::chrono::microseconds(1500));
  EXPECT_EQ(records[1].text("target"), "");
  EXPECT_EQ(records[1].boolean("ok"), true);
  EXPECT_EQ(records[1].integer("delta"), -3);
  EXPECT_EQ(records[1].line, 3u);
  EXPECT_EQ(records[2].unsigned_integer("session"), UINT64_MAX);
  EXPECT_FALSE(records[2].integer("session").has_value());  // does not fit
  EXPECT_FALSE(records[2].text("missing").has_value());
  EXPECT_EQ(harness::write_trace_line(records[1]),
            "{\"t\":1500000,\"node\":\"sim\",\"kind\":\"fault.heal\",\"target\":\"\",\"ok\":true,\"delta\":-3}");
}

TEST(TraceReader, AnEmptyTraceHasNoEvents) {
  EXPECT_TRUE(read_trace_text("", "t.jsonl").empty());
  EXPECT_TRUE(read_trace_text("\n\n  \n", "t.jsonl").empty());
}

TEST(TraceReader, ErrorsSayWhereAndWhy) {
  std::string good = "{\"t\":5,\"node\":\"zk1\",\"kind\":\"k\"}\n";
  // The line has 30 bytes; the missing '}' belongs at column 31, just past its end.
  EXPECT_EQ(error_of(good + "{\"t\":6,\"node\":\"zk1\",\"kind\":\"k\"\n"),
            "t.jsonl:2:31: not a JSON object: syntax error while parsing object - unexpected end of input; expected '}'");
  EXPECT_EQ(error_of("[1, 2]\n"), "t.jsonl:1:1: a trace line is a JSON object {\"t\": ..., \"node\": ..., \"kind\": ...}, not an array");
  EXPECT_EQ(error_of("{\"node\":\"zk1\",\"kind\":\"k\"}"), "t.jsonl:1:1: the event has no \"t\" (its time in nanoseconds)");
  EXPECT_EQ(error_of("{\"t\":1.5,\"node\":\"zk1\",\"kind\":\"k\"}"),
            "t.jsonl:1:2: \"t\" is a time in whole nanoseconds from 0 to 2^63-1, not a fractional number");
  EXPECT_EQ(error_of("{\"t\":-1,\"node\":\"zk1\",\"kind\":\"k\"}"),
            "t.jsonl:1:2: \"t\" is a time in whole nanoseconds from 0 to 2^63-1, not an integer out of range");
  EXPECT_EQ(error_of(good + "{\"t\":4,\"node\":\"zk1\",\"kind\":\"k\"}"), "t.jsonl:2:2: time goes backwards: t 4 after 5 at line 1");
  EXPECT_EQ(error_of("{\"t\":1,\"kind\":\"k\"}"), "t.jsonl:1:1: the event has no \"node\"");
  EXPECT_EQ(error_of("{\"t\":1,\"node\":\"\",\"kind\":\"k\"}"), "t.jsonl:1:8: \"node\" is a name, not empty");
  EXPECT_EQ(error_of("{\"t\":1,\"node\":\"zk1\",\"kind\":7}"), "t.jsonl:1:21: \"kind\" is a name, not an integer");
  EXPECT_EQ(error_of("{\"t\":1,\"node\":\"zk1\",\"kind\":\"k\",\"x\":null}"),
            "t.jsonl:1:32: field 'x' is null; trace fields are integers, strings or booleans");
  EXPECT_EQ(error_of("{\"t\":1,\"node\":\"zk1\",\"kind\":\"k\",\"x\":[1]}"),
            "t.jsonl:1:32: field 'x' is an array; trace fields are integers, strings or booleans");
  EXPECT_EQ(error_of("{\"t\":1,\"node\":\"zk1\",\"kind\":\"k\",\"x\":1,\"x\":2}"), "t.jsonl:1:32: the key 'x' appears twice");
  // Found by fuzz_trace_reader: nlohmann reports a number too large for a double as out_of_range.
  EXPECT_EQ(error_of("{\"t\":1,\"node\":\"zk1\",\"kind\":\"k\",\"x\":1e999}"), "t.jsonl:1:36: a number too large for JSON: 1e999");
  harness::TraceReaderLimits small;
  small.line_bytes_max = 20;
  EXPECT_EQ(error_of(good, small), "t.jsonl:1:21: the line is longer than 20 bytes, the limit for one event");
  small.line_bytes_max = 1024;
  small.records_max = 1;
  EXPECT_EQ(error_of(good + good, small), "t.jsonl: more than 1 events");
}

TEST(TraceReader, StreamsAFileOfAnyLength) {
  std::stringstream in;
  for (int i = 0; i < 1000; i++) in << "{\"t\":" << i << ",\"node\":\"zk1\",\"kind\":\"k\"}\n";
  harness::TraceReader reader(in, "long.jsonl");
  std::size_t count = 0;
  while (std::optional<TraceRecord> record = reader.next()) {
    EXPECT_EQ(record->t, static_cast<std::int64_t>(count));
    count++;
  }
  EXPECT_EQ(count, 1000u);
}

TEST(TraceReader, AFileThatCannotBeOpened) {
  try {
    harness::read_trace_file("/nonexistent/trace.jsonl");
    FAIL();
  } catch (const TraceError& error) {
    EXPECT_EQ(std::string(error.what()), "/nonexistent/trace.jsonl: cannot open: No such file or directory");
    EXPECT_EQ(error.line(), 0u);
  }
}

}  // namespace
