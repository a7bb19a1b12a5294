#include <iostream>

#include "cli/command.h"

namespace cli {

bool parse_options(const std::string& command, const std::string& synopsis, const Arguments& arguments,
                   const po::options_description& options, const po::positional_options_description& positional,
                   po::variables_map& values) {
  po::options_description all(options);
  all.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(arguments).options(all).positional(positional).run(), values);
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
