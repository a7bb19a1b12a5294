#include "model/curator/ZKPaths.h"

#include "sim/assert.h"

namespace curator::ZKPaths {

std::string makePath(std::string_view parent, std::string_view child) {
  std::string path;
  path.reserve(parent.size() + child.size() + 2);
  if (parent.empty() || parent.front() != '/') path.push_back('/');
  path.append(parent);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  while (!child.empty() && child.front() == '/') child.remove_prefix(1);
  if (child.empty()) return path;
  if (path.back() != '/') path.push_back('/');
  path.append(child);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string getNodeFromPath(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(path.substr(slash + 1));
}

std::string getParent(std::string_view path) {
  ELECTSIM_ASSERT(!path.empty() && path.front() == '/');
  std::size_t slash = path.rfind('/');
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

}  // namespace curator::ZKPaths
