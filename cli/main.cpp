// electsim: wires the subcommands together. Each subcommand lives in its own command_*.cpp.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <string_view>

#include "cli/command.h"
#include "sim/assert.h"
#include "sim/simulation.h"
#include "version.h"

namespace {

struct Subcommand {
  std::function<int(const cli::Arguments&)> run;
  const char* summary;
};

const std::map<std::string, Subcommand>& subcommands() {
  static const std::map<std::string, Subcommand> table{
      {"bench", {cli::command_bench, "benchmarks: token-storm (the engine), strategies (sharding), zk (the ZooKeeper model)"}},
      {"shard", {cli::command_shard, "one call of a sharding strategy (ElasticJob's or electsim's)"}},
      {"strategies", {cli::command_strategies, "lists the sharding strategies"}},
      {"run", {cli::command_run, "runs a scenario file and checks its properties"}},
      {"replay", {cli::command_replay, "re-runs a failure file and compares its trace hash"}},
      {"diff", {cli::command_diff, "two runs aligned event by event, and where they first part (a bug switch on and off, two seeds)"}},
      {"explore", {cli::command_explore, "randomized fault schedules (swarm testing); failures become scenario files"}},
      {"merge", {cli::command_merge, "combines the JSON summaries of explore shards"}},
      {"shrink", {cli::command_shrink, "the smallest scenario that still violates the same property"}},
      {"bugs", {cli::command_bugs, "lists the bug switches"}},
      {"properties", {cli::command_properties, "lists the properties"}},
      {"sites", {cli::command_sites, "lists the models' named sites (and trace events) a step-triggered fault can name"}},
      {"live", {cli::command_live, "runs a scenario against a real ZooKeeper 3.8 ensemble, in real time (live mode)"}},
      {"conformance", {cli::command_conformance, "the model and a real ZooKeeper 3.8 ensemble side by side (live mode)"}},
  };
  return table;
}

void print_usage(std::ostream& out) {
  out << "usage: electsim [--help] [--version] COMMAND [options]\n\n"
         "A deterministic simulator and verification harness for leader election and job sharding\n"
         "on ZooKeeper (FastLeaderElection, Zab, Curator, ElasticJob).\n\ncommands:\n";
  for (const auto& [name, subcommand] : subcommands()) {
    out << "  " << name << std::string(12 - std::min<std::size_t>(name.size(), 11), ' ') << subcommand.summary << "\n";
  }
  out << "\nRun 'electsim COMMAND --help' for a command's options.\n";
}

// The verdict or summary on standard output reached it: a full disk (`> /dev/full`) or a write error
// is exit status 4 with the reason, never a silent 0 with the result lost.
int standard_output_written(int status) {
  std::cout.flush();
  int flushed = std::fflush(stdout);
  int saved = errno;
  if (std::cout.good() && flushed == 0 && std::ferror(stdout) == 0) return status;
  std::cerr << "electsim: cannot write standard output: " << (saved != 0 ? std::strerror(saved) : "write error")
            << " (the result is lost)\n";
  return cli::exit_output_failed;
}

// A message may quote what the user typed (an option's value, a file name): control characters in
// it are shown as \xNN, never sent raw to the terminal (ESC would start an escape sequence).
std::string printable(std::string_view text) {
  std::string result;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte < ' ' && c != '\n' && c != '\t') || byte == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "\\x%02x", byte);
      result += code;
    } else {
      result += c;
    }
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  cli::Arguments arguments(argv + 1, argv + argc);
  if (arguments.empty()) {
    print_usage(std::cerr);
    return cli::exit_bad_input;
  }
  const std::string& first = arguments[0];
  if (first == "--help" || first == "-h" || first == "help") {
    print_usage(std::cout);
    return cli::exit_ok;
  }
  if (first == "--version") {
    std::cout << "electsim " << ELECTSIM_VERSION << "\n";
    return cli::exit_ok;
  }
  auto found = subcommands().find(first);
  if (found == subcommands().end()) {
    std::cerr << "electsim: unknown command '" << printable(first) << "' (see: electsim --help)\n";
    return cli::exit_bad_input;
  }
  try {
    int status = found->second.run(cli::Arguments(arguments.begin() + 1, arguments.end()));
    return standard_output_written(status);
  } catch (const cli::FileError& error) {
    std::cerr << printable(error.what()) << "\n";
    return cli::exit_bad_input;
  } catch (const cli::UsageError& error) {
    std::cerr << "electsim: " << printable(error.what()) << "\n";
    return cli::exit_bad_input;
  } catch (const sim::LimitExceeded& error) {
    // A simulation outside the scenario runner (a benchmark) hit a limit: said plainly, never an
    // out-of-memory kill.
    std::cerr << "electsim: stopped at the limit " << error.limit() << ": " << error.what() << "\n";
    return cli::exit_bad_input;
  } catch (const sim::AssertionFailure& error) {
    std::cerr << "electsim: internal error: " << error.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    // The system refused memory (a `ulimit -v` below electsim's own --max-memory budget, or a full
    // machine): said plainly, as a limit of the environment, never "internal error".
    std::cerr << "electsim: out of memory: the system gave this process no more memory (ulimit -v, or a full machine); "
                 "--max-memory sets electsim's own budget, which stops a run cleanly\n";
    return cli::exit_bad_input;
  } catch (const std::exception& error) {
    std::cerr << "electsim: internal error: " << printable(error.what()) << "\n";
    return 3;
  }
}
