// Reliability (docs/reliability.md): limits stop a run with a finding that names them; a failed
// model assertion or an exception inside a run is a model-sanity finding that leaves the other runs
// of a sweep alone; the determinism check catches a run that depends on memory layout; failure
// files are written whole; the trace a run writes reads back exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "harness/atomic_file.h"
#include "harness/explore.h"
#include "harness/failure_writer.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/trace_reader.h"
#include "sim/frame_pool.h"

namespace {

using namespace std::chrono_literals;
using harness::ExploreOptions;
using harness::Recipe;

harness::Scenario ensemble_with_writers() {
  return harness::parse_scenario_text(R"(name: writers
duration: 20s
zookeeper: {servers: 3}
clients: {writers: 2, write_interval: 100ms}
faults:
  - {at: 5s, crash: zk3}
)",
                                      "writers.yaml");
}

harness::RunResult run_with(const harness::Scenario& scenario, const sim::SimulationLimits& limits) {
  harness::RunOptions options;
  options.limits = limits;
  options.timeline = false;
  return harness::runScenario(scenario, options);
}

void expect_limit(const harness::RunResult& result, const std::string& name) {
  ASSERT_TRUE(result.limit.has_value()) << "no limit was hit";
  EXPECT_EQ(result.limit->substr(0, name.size() + 1), name + ":") << *result.limit;
  EXPECT_EQ(result.properties.at("model-sanity"), properties::Verdict::violated);
  EXPECT_FALSE(result.expectations_met);
}

TEST(Limits, EventsStopTheRunWithAFindingNamingTheLimit) {
  sim::SimulationLimits limits;
  limits.max_events = 500;
  harness::RunResult result = run_with(ensemble_with_writers(), limits);
  expect_limit(result, "max-events");
  EXPECT_LE(result.events, 500u);
}

TEST(Limits, NodesAreCheckedWhileTheClusterIsBuilt) {
  sim::SimulationLimits limits;
  limits.max_nodes = 2;  // the scenario has 3 servers and 2 writers
  expect_limit(run_with(ensemble_with_writers(), limits), "max-nodes");
}

TEST(Limits, PendingEvents) {
  sim::SimulationLimits limits;
  limits.max_pending_events = 5;
  expect_limit(run_with(ensemble_with_writers(), limits), "max-pending-events");
}

TEST(Limits, MemoryBudget) {
  if (sim::memory_measure() == sim::MemoryMeasure::none) GTEST_SKIP() << "no memory measure in this build";
  sim::SimulationLimits limits;
  limits.max_memory_bytes = 1;  // any growth at all
  expect_limit(run_with(ensemble_with_writers(), limits), "max-memory");
}

TEST(Limits, TheDefaultsLeaveARealScenarioAlone) {
  harness::RunResult result = run_with(ensemble_with_writers(), sim::SimulationLimits{});
  EXPECT_FALSE(result.limit.has_value()) << *result.limit;
  EXPECT_FALSE(result.finding.has_value()) << *result.finding;
}

TEST(Limits, TheFileSizeLimitIsTheCallersToChoose) {
  std::string text = "name: small\nduration: 1s\n";
  EXPECT_NO_THROW(harness::parse_scenario_text(text, "s.yaml", text.size()));
  try {
    harness::parse_scenario_text(text, "s.yaml", text.size() - 1);
    FAIL() << "a file over its limit was parsed";
  } catch (const harness::ScenarioError& error) {
    EXPECT_EQ(std::string(error.what()), "s.yaml: the file is 25 bytes, larger than the limit of 24 bytes for a scenario file");
  }
}

// Found by fuzz_scenario_parser: bytes that are not UTF-8 were kept in strings and written back as
// U+FFFD, so the failure file of such a scenario would not have replayed.
TEST(HostileInput, AFileThatIsNotUtf8IsAnErrorAtTheBadByte) {
  auto error_of = [](const std::string& text) {
    try {
      harness::parse_scenario_text(text, "u.yaml");
    } catch (const harness::ScenarioError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("name: a\ndescription: caf\xC3\xA9 \x9D\nduration: 1s\n"),
            "u.yaml:2:19: the file is not UTF-8 text: byte 0x9D does not start a valid UTF-8 character");
  EXPECT_EQ(error_of("name: \xC0\xAF\nduration: 1s\n"), "u.yaml:1:7: the file is not UTF-8 text: byte 0xC0 does not start a valid UTF-8 character");
  EXPECT_EQ(error_of("name: \xED\xA0\x80\nduration: 1s\n"), "u.yaml:1:7: the file is not UTF-8 text: byte 0xED does not start a valid UTF-8 character");
  EXPECT_EQ(error_of("name: a\ndescription: \xF0\x9F\x98\x80 ok\nduration: 1s\n"), "no error");  // four bytes, one character
}

// Found by fuzz_scenario_parser: a NUL inside a description was accepted, and the writer emitted it
// in a form that did not read back the same. YAML allows no control characters but TAB, LF and CR.
TEST(HostileInput, AControlCharacterIsAnErrorAtItsPlace) {
  auto error_of = [](const std::string& text) {
    try {
      harness::parse_scenario_text(text, "n.yaml");
    } catch (const harness::ScenarioError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(std::string("name: a\ndescription: LEA\0NG\nduration: 1s\n", 41)),
            "n.yaml:2:17: the file has the control character 0x00, which YAML does not allow");
  EXPECT_EQ(error_of("name: a\x7F\nduration: 1s\n"), "n.yaml:1:8: the file has the control character 0x7F, which YAML does not allow");
  EXPECT_EQ(error_of("name: a\r\nduration:\t1s\n"), "no error");  // CR and TAB are fine
}

// Found by fuzz_scenario_parser: yaml-cpp's LoadAll loops forever, allocating, on a document that
// starts with a stray comma.
TEST(HostileInput, AStrayCommaIsAnErrorNotAHang) {
  auto error_of = [](const std::string& text) {
    try {
      harness::parse_scenario_text(text, "c.yaml");
    } catch (const harness::ScenarioError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(","), "c.yaml:1:1: YAML syntax error: unexpected ',' where a document should start");
  EXPECT_EQ(error_of(", deletes its latch node.\nname: a\nduration: 1s\n"),
            "c.yaml:1:1: YAML syntax error: unexpected ',' where a document should start");
  EXPECT_EQ(error_of("name: a\nduration: 1s\n---\n,\n"), "c.yaml:4:1: YAML syntax error: unexpected ',' where a document should start");
}

// A hook that plants a failure into the runs whose seed is a multiple of 3: at 2 s, a callback on
// the first node (zk1) fails an assertion, or throws something that is not one.
std::function<void(sim::Simulation&)> plant_failure(bool assertion) {
  return [assertion](sim::Simulation& sim) {
    if (sim.seed() % 3 != 0) return;
    (void)sim.schedule_callback(sim::epoch + 2s, 0, [assertion] {
      if (assertion) ELECTSIM_ASSERT_MSG(1 + 1 == 3, "a deliberately failing test assertion");
      throw std::runtime_error("a deliberately thrown test exception");
    });
  };
}

ExploreOptions small_sweep(std::uint64_t runs) {
  ExploreOptions options;
  options.swarm.recipe = Recipe::leader_latch;
  options.swarm.duration = 20s;
  options.runs = runs;
  options.seed = 1;
  options.jobs = 2;
  options.out_dir = "";
  return options;
}

harness::ExploreSummary quiet_explore(const ExploreOptions& options) {
  std::atomic<bool> stop{false};
  return harness::explore(options, [](const harness::ExploreProgress&) {}, stop);
}

// A sweep whose every third run fails (plant_failure), writing its failure files into `out`.
ExploreOptions failing_sweep(std::uint64_t runs, const std::filesystem::path& out, bool assertion) {
  ExploreOptions options = small_sweep(runs);
  options.out_dir = out.string();
  options.found_by = "reliability_test";
  options.test_hook = plant_failure(assertion);
  return options;
}

class FailureInsideARun : public ::testing::TestWithParam<bool> {};

TEST_P(FailureInsideARun, IsAModelSanityFindingAndTheSweepGoesOn) {
  bool assertion = GetParam();
  std::filesystem::path out = std::filesystem::temp_directory_path() / ("electsim-reliability-" + std::to_string(::getpid()) +
                                                                        (assertion ? "-assert" : "-throw"));
  std::filesystem::remove_all(out);
  harness::ExploreSummary summary = quiet_explore(failing_sweep(9, out, assertion));
  ExploreOptions clean = small_sweep(9);
  harness::ExploreSummary baseline = quiet_explore(clean);

  EXPECT_EQ(summary.runs, 9u);  // every run finished: none was taken down by another's failure
  EXPECT_FALSE(summary.interrupted);
  EXPECT_EQ(baseline.failures, 0u);
  EXPECT_EQ(summary.failures, 3u);  // seeds 3, 6 and 9
  EXPECT_EQ(summary.failures_by_property["model-sanity"], 3u);
  ASSERT_TRUE(summary.first_failure.has_value());
  EXPECT_EQ(summary.first_failure->seed, 3u);
  std::string expected = assertion ? "assertion failed: 1 + 1 == 3" : "uncaught exception: a deliberately thrown test exception";
  EXPECT_NE(summary.first_failure->message.find(expected), std::string::npos) << summary.first_failure->message;
  EXPECT_NE(summary.first_failure->message.find("(on zk1, seed 3)"), std::string::npos) << summary.first_failure->message;
  // Each finding is a failure file naming its seed, and nothing else is in the directory.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    files++;
    std::string name = entry.path().filename().string();
    EXPECT_NE(name.find("-model-sanity.yaml"), std::string::npos) << name;
    harness::Scenario failure = harness::parse_scenario_file(entry.path().string());
    ASSERT_TRUE(failure.failure.has_value());
    EXPECT_EQ(failure.failure->property, "model-sanity");
    EXPECT_EQ(failure.seed % 3, 0u);
  }
  EXPECT_EQ(files, 3u);
  std::filesystem::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(Reliability, FailureInsideARun, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Assertion" : "Exception"; });

TEST(DeterminismCheck, CleanRunsPassAndTheSummaryIsUnchanged) {
  ExploreOptions options = small_sweep(6);
  harness::ExploreSummary plain = quiet_explore(options);
  options.check_determinism = true;
  harness::ExploreSummary checked = quiet_explore(options);
  EXPECT_EQ(checked.failures, 0u) << (checked.first_failure ? checked.first_failure->message : "");
  EXPECT_EQ(checked.trace_hash, plain.trace_hash);
  EXPECT_EQ(checked.events, plain.events);
}

TEST(DeterminismCheck, ARunThatDependsOnHeapAddressesIsCaught) {
  ExploreOptions options = small_sweep(4);
  options.check_determinism = true;
  // The kind of bug the check exists for: something ordered or hashed by a pointer value.
  options.test_hook = [](sim::Simulation& sim) {
    (void)sim.schedule_callback(sim::epoch + 1s, sim::no_node, [&sim] {
      auto probe = std::make_unique<std::uint64_t>(0);
      auto address = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(probe.get()));
      sim.trace().emit(sim::no_node, "test.address", {{"address", address}});
    });
  };
  harness::ExploreSummary summary = quiet_explore(options);
  EXPECT_EQ(summary.failures, 4u);
  EXPECT_EQ(summary.failures_by_property["model-sanity"], 4u);
  ASSERT_TRUE(summary.first_failure.has_value());
  EXPECT_NE(summary.first_failure->message.find("nondeterminism: seed 1 ran twice with different results"), std::string::npos)
      << summary.first_failure->message;
}

TEST(AtomicFile, WritesTheWholeFileAndLeavesNoTemporary) {
  std::filesystem::path directory = std::filesystem::temp_directory_path() / ("electsim-atomic-" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  std::filesystem::path file = directory / "failure.yaml";
  harness::write_file_atomically(file, "old\n");
  harness::write_file_atomically(file, "new\n");
  {
    harness::AtomicFile abandoned(file);
    abandoned.stream() << "half a scenario";
    // destroyed without commit(): an interrupted writer
  }
  std::ifstream in(file);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "new\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(directory)) entries++;
  EXPECT_EQ(entries, 1u) << "a temporary file was left behind";
  EXPECT_THROW(harness::write_file_atomically(directory / "no-such-directory" / "x.yaml", "x"), harness::FileWriteError);
  std::filesystem::remove_all(directory);
}

// Atomic replacement is for regular files: a FIFO, a device and a symlink stay what they are (as
// root, `--trace /dev/null` once replaced the machine's /dev/null with a regular file), and a replaced
// file keeps its mode.
TEST(AtomicFile, WritesThroughWhatIsNotARegularFileAndFollowsSymlinks) {
  std::filesystem::path directory = std::filesystem::temp_directory_path() / ("electsim-through-" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  auto content_of = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };

  // A symlink to a regular file: the target is replaced, the link stays a link.
  std::filesystem::path target = directory / "target.jsonl";
  harness::write_file_atomically(target, "old\n");
  ::chmod(target.c_str(), 0640);
  std::filesystem::create_symlink("target.jsonl", directory / "link.jsonl");
  harness::write_file_atomically(directory / "link.jsonl", "new\n");
  EXPECT_TRUE(std::filesystem::is_symlink(directory / "link.jsonl"));
  EXPECT_EQ(content_of(target), "new\n");
  EXPECT_EQ(std::filesystem::status(target).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | std::filesystem::perms::group_read);
  // A dangling symlink: the file it names is created.
  std::filesystem::create_symlink("later.jsonl", directory / "dangling.jsonl");
  harness::write_file_atomically(directory / "dangling.jsonl", "made\n");
  EXPECT_TRUE(std::filesystem::is_symlink(directory / "dangling.jsonl"));
  EXPECT_EQ(content_of(directory / "later.jsonl"), "made\n");

  // A FIFO: its reader gets the content, and it is still a FIFO.
  std::filesystem::path fifo = directory / "trace.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string read_back;
  std::thread reader([&] { read_back = content_of(fifo); });
  harness::write_file_atomically(fifo, "through\n");
  reader.join();
  EXPECT_EQ(read_back, "through\n");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));

  // A character device (a copy of /dev/null, made where it is safe to break): written through.
  std::filesystem::path device = directory / "null";
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    harness::write_file_atomically(device, "discarded\n");
    EXPECT_TRUE(std::filesystem::is_character_file(device)) << "the device node was replaced by a regular file";
  }
  std::size_t temporaries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) temporaries += entry.path().filename().string().starts_with(".");
  EXPECT_EQ(temporaries, 0u);
  std::filesystem::remove_all(directory);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(FailureWriter, WritesEverySubmittedFileWholeBeforeFinishReturns) {
  std::filesystem::path directory = std::filesystem::temp_directory_path() / ("electsim-writer-" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  // More files than the queue holds: submit waits for room instead of failing or dropping any.
  const std::size_t count = harness::FailureWriter::max_queued * 2 + 7;
  harness::FailureWriter writer;
  for (std::size_t i = 0; i < count; i++) {
    writer.submit((directory / ("f" + std::to_string(i) + ".yaml")).string(), "seed: " + std::to_string(i) + "\n", "file " + std::to_string(i));
  }
  writer.finish();
  writer.finish();  // idempotent, as the destructor calls it again
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(directory)) entries++;
  EXPECT_EQ(entries, count) << "a file is missing or a temporary was left behind";
  for (std::size_t i = 0; i < count; i += 97) {
    std::filesystem::path file = directory / ("f" + std::to_string(i) + ".yaml");
    EXPECT_EQ(read_file(file), "seed: " + std::to_string(i) + "\n");
    EXPECT_FALSE(writer.failed(file.string()));
  }
  std::filesystem::remove_all(directory);
}

TEST(FailureWriter, AFileThatCannotBeWrittenIsReportedAndTheOthersAreWritten) {
  std::filesystem::path directory = std::filesystem::temp_directory_path() / ("electsim-writer-bad-" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory / "taken.yaml");  // a directory where the file should go
  testing::internal::CaptureStderr();
  harness::FailureWriter writer;
  writer.submit((directory / "taken.yaml").string(), "x\n", "seed 5 failed full-coverage");
  writer.submit((directory / "fine.yaml").string(), "y\n", "seed 6 failed full-coverage");
  writer.finish();
  std::string errors = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(writer.failed((directory / "taken.yaml").string()));
  EXPECT_FALSE(writer.failed((directory / "fine.yaml").string()));
  EXPECT_EQ(read_file(directory / "fine.yaml"), "y\n");
  EXPECT_EQ(errors.rfind("explore: seed 5 failed full-coverage but its failure file was not written: cannot write ", 0), 0u) << errors;
  EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
  std::filesystem::remove_all(directory);
}

TEST(FailureWriter, ASweepWhoseFirstFailureFileCannotBeWrittenNamesNoFile) {
  std::filesystem::path out = std::filesystem::temp_directory_path() / ("electsim-reliability-unwritable-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const ExploreOptions options = failing_sweep(6, out, false);
  harness::ExploreSummary written = quiet_explore(options);
  ASSERT_TRUE(written.first_failure.has_value());
  ASSERT_FALSE(written.first_failure->file.empty());
  EXPECT_TRUE(std::filesystem::is_regular_file(written.first_failure->file));
  // Again, with a directory in the way of the first failure's file (seed 3); seed 6's is written.
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(written.first_failure->file);
  testing::internal::CaptureStderr();
  harness::ExploreSummary blocked = quiet_explore(options);
  std::string errors = testing::internal::GetCapturedStderr();
  EXPECT_EQ(blocked.failures, 2u);
  ASSERT_TRUE(blocked.first_failure.has_value());
  EXPECT_EQ(blocked.first_failure->seed, 3u);
  EXPECT_TRUE(blocked.first_failure->file.empty()) << blocked.first_failure->file;
  EXPECT_NE(errors.find("explore: seed 3 failed model-sanity but its failure file was not written"), std::string::npos) << errors;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(out)) files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(out);
}

TEST(TraceReader, ReadsBackTheTraceOfARunExactly) {
  std::ostringstream trace;
  harness::RunOptions options;
  options.trace_out = &trace;
  harness::RunResult result = harness::runScenario(ensemble_with_writers(), options);
  std::vector<harness::TraceRecord> records = harness::read_trace_text(trace.str(), "run.jsonl");
  ASSERT_GT(records.size(), 100u);
  EXPECT_EQ(records.front().kind, "node.start");
  std::string rewritten;
  for (const harness::TraceRecord& record : records) rewritten += harness::write_trace_line(record) + "\n";
  EXPECT_EQ(rewritten, trace.str());  // byte for byte what sim::JsonLinesSink wrote
  bool crash = false;
  for (const harness::TraceRecord& record : records) crash = crash || (record.kind == "fault.crash" && record.node == "zk3");
  EXPECT_TRUE(crash);
  EXPECT_LE(records.back().time(), sim::epoch + 20s);
  (void)result;
}

}  // namespace
