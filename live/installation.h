// Where the real ZooKeeper lives on this machine: a `java` and Debian's `zookeeper` jars. Found at
// run time (the jars are not needed to build), so a missing piece is a clear message, not a crash.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace live {

struct Installation {
  std::filesystem::path java;       // the java executable
  std::string class_path;           // zookeeper.jar (its manifest lists its dependencies) + a logger
  std::string zookeeper_version;    // from the jar's name, e.g. "3.8.0"
};

// Looks for java in $JAVA_HOME/bin, then $PATH; for the jars in $ELECTSIM_ZOOKEEPER_JARS, then
// /usr/share/java (Debian). Returns the installation, or fills `missing` with what to install.
std::optional<Installation> find_installation(std::string& missing);

}  // namespace live
