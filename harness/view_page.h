// The viewer's page: one self-contained HTML file (inline CSS, SVG and JavaScript, nothing fetched,
// works offline from a file) that steps through a run (harness/view.h has the data it embeds).
//
// A cursor moves over the steps (keys n/p or arrows, shift for the same node, k/K for the same kind,
// v for the next violation, a click on a step, a sentence or the overview); at the cursor, every
// node's state is in the panel with the fields the step changed highlighted; the narration beside
// the picture follows the cursor and each sentence moves it. The time axis is either the steps (a
// burst of a millisecond and a quiet minute take the room their steps need) or linear time; an
// overview strip shows the whole run with its violations, faults and folded stretches. Search by
// node, kind or text; hide lanes; the cursor, window, filters and text size live in the URL's hash,
// so a teacher can share a moment. `electsim diff` puts two runs' pages side by side (diff_page).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

namespace harness {

void write_view_page(std::ostream& out, const nlohmann::ordered_json& data);

// The page's style, script and data element, shared by the diff page (two views on one page).
std::string_view view_page_style();
std::string_view view_page_script();
void write_view_data(std::ostream& out, const std::string& id, const nlohmann::ordered_json& data);
std::string html_escaped(std::string_view text);  // <, > and & as entities
std::string_view view_page_help();                 // the keys, one line

}  // namespace harness
