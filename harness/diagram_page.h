// The diagram's page: one self-contained HTML document (inline CSS, SVG drawn by inline
// JavaScript from the run's data, nothing fetched), so a diagram can be mailed, archived or opened
// offline. The data layout is DiagramSink::data's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace harness {

std::string diagram_page(const nlohmann::ordered_json& data);

// JSON made safe inside a <script> element ("</script" or "<!--" would end or derail it): every
// '<', which JSON has only inside strings, written "\u003c". The viewer's pages use it too.
std::string script_safe(const std::string& json);

}  // namespace harness
