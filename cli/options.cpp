#include <iostream>

#include "cli/command.h"
#include "harness/scenario_yaml.h"

namespace cli {

namespace {

// Boost.Program_options reads "-1" into an unsigned option by wrapping it round (lexical_cast does),
// so "--seed -1" would silently mean seed 18446744073709551615. A value of an unsigned option that
// starts with '-' is refused here instead.
template <class Unsigned>
bool is_unsigned_option(const po::option_description& description) {
  return dynamic_cast<const po::typed_value<Unsigned>*>(description.semantic().get()) != nullptr;
}

void refuse_negative_unsigned(const std::string& command, const po::options_description& options, const po::parsed_options& parsed) {
  for (const po::option& option : parsed.options) {
    if (option.unregistered || option.string_key.empty()) continue;
    const po::option_description* description = options.find_nothrow(option.string_key, false);
    if (description == nullptr) continue;
    if (!is_unsigned_option<unsigned>(*description) && !is_unsigned_option<unsigned long>(*description) &&
        !is_unsigned_option<unsigned long long>(*description)) {
      continue;
    }
    for (const std::string& value : option.value) {
      std::size_t start = value.find_first_not_of(" \t");
      if (start != std::string::npos && value[start] == '-') {
        throw UsageError(command + ": --" + option.string_key + " takes a whole number of at least 0, not '" + value + "'");
      }
    }
  }
}

}  // namespace

// A seed on the command line reads as in a scenario file (harness::parse_unsigned_text): decimal or
// 0x hex, no sign, no leading zero, so `--seed 0x10` is `seed: 0x10`.
void validate(boost::any& value, const std::vector<std::string>& texts, Seed*, int) {
  po::validators::check_first_occurrence(value);
  const std::string& text = po::validators::get_single_string(texts);
  std::optional<std::uint64_t> parsed = harness::scenario_yaml::parse_unsigned_text(text);
  if (!parsed) {
    throw po::error("--seed takes a whole number from 0 to 18446744073709551615, in decimal or 0x hex, not '" + text + "'");
  }
  value = Seed{*parsed};
}

bool parse_options(const std::string& command, const std::string& synopsis, const Arguments& arguments,
                   const po::options_description& options, const po::positional_options_description& positional,
                   po::variables_map& values) {
  po::options_description all(options);
  all.add_options()("help,h", "show this help");
  try {
    // No guessing of prefixes: Boost would read "--se 5" as "--seed 5", and an option added later
    // could silently change what an old command line means.
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::parsed_options parsed = po::command_line_parser(arguments).options(all).positional(positional).style(style).run();
    refuse_negative_unsigned(command, all, parsed);
    po::store(parsed, values);
    if (values.count("help") != 0) {
      std::cout << "usage: electsim " << command << " " << synopsis << "\n\n" << all << "\n";
      return false;
    }
    po::notify(values);
  } catch (const po::error& error) {
    throw UsageError(command + ": " + error.what() + " (see: electsim " + command + " --help)");
  }
  return true;
}

}  // namespace cli
