// The electsim command: one function per subcommand, all wired in main.cpp. A subcommand parses its
// own options with Boost.Program_options and returns the process exit status:
// 0 success, 1 an expectation not met / failures found, 2 bad input.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace cli {

namespace po = boost::program_options;

inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;
inline constexpr int exit_bad_input = 2;
// 3 is an internal error.
inline constexpr int exit_output_failed = 4;  // standard output could not be written (a full disk)

using Arguments = std::vector<std::string>;

// The value of a --seed option: read with the scenario file's grammar (options.cpp's validate).
struct Seed {
  std::uint64_t value = 0;
};
void validate(boost::any& value, const std::vector<std::string>& texts, Seed*, int);

// Bad input: the message goes to stderr as "electsim: <message>" and the exit status is 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input in a file: the message already starts "FILE:LINE:COLUMN: " (a place in it) or "FILE: "
// (the whole file) and goes to stderr as it is, the form compilers use, which editors and scripts
// match at the line's start. The exit status is 2.
class FileError : public UsageError {
 public:
  using UsageError::UsageError;
};

// Parses `arguments` (the words after the subcommand) against `options` and `positional`.
// Prints the help and returns false when --help was asked for; throws UsageError on bad input.
bool parse_options(const std::string& command, const std::string& synopsis, const Arguments& arguments,
                   const po::options_description& options, const po::positional_options_description& positional,
                   po::variables_map& values);

int command_bench(const Arguments& arguments);
int command_run(const Arguments& arguments);
int command_explore(const Arguments& arguments);
int command_systematic(const Arguments& arguments);  // explore --systematic (command_systematic.cpp)
int command_merge(const Arguments& arguments);
int command_shrink(const Arguments& arguments);
int bench_zookeeper(const Arguments& arguments);  // electsim bench zk (command_bench_zk.cpp)
int command_replay(const Arguments& arguments);
int command_diff(const Arguments& arguments);  // command_diff.cpp
int command_bugs(const Arguments& arguments);
int command_properties(const Arguments& arguments);
int command_sites(const Arguments& arguments);
int command_shard(const Arguments& arguments);
int command_strategies(const Arguments& arguments);
int command_conformance(const Arguments& arguments);  // command_conformance.cpp (live mode)
int command_live(const Arguments& arguments);         // command_live.cpp (live mode)
// `electsim bench strategies`, which command_bench dispatches to (lives in command_strategies.cpp).
int bench_strategies(const Arguments& arguments);

// Splits "a,b,c" at commas, trimming spaces around each element; "" gives no element. Empty
// elements ("a,,b") are kept, for the caller to reject. (Defined in command_shard.cpp.)
std::vector<std::string> split_list(const std::string& text);

}  // namespace cli
