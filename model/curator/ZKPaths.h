// org.apache.curator.utils.ZKPaths: joining and splitting znode paths.
#pragma once

#include <string>
#include <string_view>

namespace curator::ZKPaths {

// makePath("/a", "b") == "/a/b"; makePath("/", "b") == "/b"; an empty child gives the parent.
std::string makePath(std::string_view parent, std::string_view child);
// getNodeFromPath("/a/b") == "b".
std::string getNodeFromPath(std::string_view path);
// The parent: "/a/b" -> "/a", "/b" -> "/".
std::string getParent(std::string_view path);

}  // namespace curator::ZKPaths
