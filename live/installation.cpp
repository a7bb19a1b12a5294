#include "live/installation.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace live {

namespace {

std::optional<std::filesystem::path> find_java() {
  if (const char* home = std::getenv("JAVA_HOME"); home != nullptr && *home != '\0') {
    std::filesystem::path java = std::filesystem::path(home) / "bin" / "java";
    if (::access(java.c_str(), X_OK) == 0) return java;
  }
  const char* path = std::getenv("PATH");
  std::stringstream folders(path != nullptr ? path : "/usr/bin:/bin");
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    if (folder.empty()) continue;
    std::filesystem::path java = std::filesystem::path(folder) / "java";
    if (::access(java.c_str(), X_OK) == 0) return java;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Installation> find_installation(std::string& missing) {
  missing.clear();
  std::optional<std::filesystem::path> java = find_java();
  const char* jars_override = std::getenv("ELECTSIM_ZOOKEEPER_JARS");
  std::filesystem::path jars = jars_override != nullptr && *jars_override != '\0' ? jars_override : "/usr/share/java";
  std::filesystem::path zookeeper_jar = jars / "zookeeper.jar";
  std::error_code error;
  bool have_jar = std::filesystem::exists(zookeeper_jar, error);
  if (!java) missing += "java not found (install default-jre-headless)";
  if (!have_jar) {
    if (!missing.empty()) missing += "; ";
    missing += zookeeper_jar.string() + " not found (install Debian's zookeeper package)";
  }
  if (!missing.empty()) return std::nullopt;

  Installation installation;
  installation.java = *java;
  // zookeeper.jar's manifest Class-Path names its dependencies (netty, jute, slf4j-api, ...) in
  // Debian's package; slf4j-simple makes the servers' logs go to stderr, i.e. their log files.
  installation.class_path = zookeeper_jar.string();
  std::filesystem::path simple_logger = jars / "slf4j-simple.jar";
  if (std::filesystem::exists(simple_logger, error)) installation.class_path += ":" + simple_logger.string();
  // The versioned jar next to the link says which release this is (zookeeper-3.8.0.jar).
  for (const auto& entry : std::filesystem::directory_iterator(jars, error)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with("zookeeper-3") && name.ends_with(".jar")) {
      installation.zookeeper_version = name.substr(10, name.size() - 14);
    }
  }
  return installation;
}

}  // namespace live
