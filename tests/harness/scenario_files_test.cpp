// parse_scenario_file: the file-level errors, and every scenario file shipped in scenarios/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/scenario_parser.h"
#include "harness/scenario_writer.h"

namespace {

using namespace harness;
namespace fs = std::filesystem;

// A scratch directory for one test, removed afterwards.
class ScenarioFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    directory = fs::temp_directory_path() / ("electsim-scenario-files-" + std::to_string(::getpid()));
    fs::create_directories(directory);
  }
  void TearDown() override { fs::remove_all(directory); }

  std::string write(const std::string& name, const std::string& text) {
    fs::path path = directory / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  std::string error_of(const std::string& path) {
    try {
      parse_scenario_file(path);
    } catch (const ScenarioError& error) {
      EXPECT_EQ(error.file(), path);
      return error.what();
    }
    return "no error";
  }

  fs::path directory;
};

TEST_F(ScenarioFiles, ReadsAFile) {
  std::string path = write("ok.yaml", "name: from-file\nduration: 5s\n");
  EXPECT_EQ(parse_scenario_file(path).name, "from-file");
}

TEST_F(ScenarioFiles, ErrorsNameThePathAsGiven) {
  std::string path = write("bad.yaml", "name: x\nduration: 5s\nseed: -1\n");
  EXPECT_EQ(error_of(path),
            path + ":3:7: bad number '-1' for seed: expected a whole number from 0 to 18446744073709551615");
}

TEST_F(ScenarioFiles, MissingFileHasNoLineOrColumn) {
  std::string path = (directory / "absent.yaml").string();
  EXPECT_EQ(error_of(path), path + ": cannot open: No such file or directory");
  try {
    parse_scenario_file(path);
  } catch (const ScenarioError& error) {
    EXPECT_EQ(error.line(), 0);
    EXPECT_EQ(error.column(), 0);
  }
}

TEST_F(ScenarioFiles, ADirectoryIsNotAScenario) {
  EXPECT_EQ(error_of(directory.string()), directory.string() + ": is a directory, not a scenario file");
}

TEST_F(ScenarioFiles, LargerThanOneMebibyteIsRefusedUnread) {
  std::string at_limit = "name: x\nduration: 5s\ndescription: \"";
  at_limit += std::string(scenario_file_size_max - at_limit.size() - 2, 'x') + "\"\n";
  ASSERT_EQ(at_limit.size(), scenario_file_size_max);
  EXPECT_EQ(parse_scenario_file(write("at-limit.yaml", at_limit)).name, "x");

  std::string path = write("too-large.yaml", at_limit + "#");
  EXPECT_EQ(error_of(path), path + ": the file is larger than the limit of 1048576 bytes (1 MiB) for a scenario file");
}

// Every scenario file in the repository (scenarios/ and the benchmarks' bench/scenarios/) parses,
// and survives being written and parsed again.
TEST(ShippedScenarios, EveryFileParsesAndRoundTrips) {
  int files = 0;
  for (fs::path root : {fs::path(ELECTSIM_SCENARIOS_DIR), fs::path(ELECTSIM_BENCH_SCENARIOS_DIR)}) {
    ASSERT_TRUE(fs::exists(root)) << root;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
      SCOPED_TRACE(entry.path().string());
      files++;
      Scenario scenario;
      ASSERT_NO_THROW(scenario = parse_scenario_file(entry.path().string()));
      EXPECT_EQ(parse_scenario_text(write_scenario(scenario), entry.path().string()), scenario);
    }
  }
  EXPECT_GT(files, 0);
  RecordProperty("files", files);
}

// The documentation's complete examples (the ```yaml blocks that start with `name:`) are valid files.
TEST(DocumentedScenarios, ExamplesInTheFormatDocumentParse) {
  std::ifstream doc(ELECTSIM_SCENARIO_FORMAT_DOC);
  ASSERT_TRUE(doc) << ELECTSIM_SCENARIO_FORMAT_DOC;
  std::string line;
  std::string block;
  bool in_yaml = false;
  int line_number = 0;
  int examples = 0;
  while (std::getline(doc, line)) {
    line_number++;
    if (!in_yaml && line == "```yaml") {
      in_yaml = true;
      block.clear();
    } else if (in_yaml && line == "```") {
      in_yaml = false;
      if (!block.starts_with("name:")) continue;
      examples++;
      SCOPED_TRACE("the example ending at line " + std::to_string(line_number));
      EXPECT_NO_THROW(parse_scenario_text(block, "scenario-format.md"));
    } else if (in_yaml) {
      block += line + "\n";
    }
  }
  EXPECT_GE(examples, 2);
}

}  // namespace
