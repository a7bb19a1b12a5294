// The diagram's page: one self-contained HTML document (inline CSS, SVG drawn by inline
// JavaScript from the run's data, nothing fetched), so a diagram can be mailed, archived or opened
// offline. The data layout is DiagramSink::data's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace harness {

std::string diagram_page(const nlohmann::ordered_json& data);

}  // namespace harness
