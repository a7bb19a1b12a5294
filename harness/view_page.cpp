#include "harness/view_page.h"

#include "harness/diagram_page.h"

#include <string>

namespace harness {

namespace {

// Sized by --fs (the A-/A+ buttons): readable from the back of a room at 20-24 px.
constexpr std::string_view style = R"CSS(
  body { margin: 0; font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #222; background: #fff; }
  h1 { font-size: 17px; margin: 6px 10px 2px; }
  .help { font-size: 12px; color: #555; margin: 0 10px 4px; }
  .electsim-view { font-size: var(--fs, 14px); outline: none; padding: 0 6px 8px; }
  .electsim-view .bar { position: sticky; top: 0; background: #fafafa; border-bottom: 1px solid #ddd; padding: 4px; z-index: 2; }
  .electsim-view .bar button { font-size: inherit; margin: 1px; }
  .electsim-view .bar input, .electsim-view .bar select { font-size: inherit; }
  .electsim-view .main { display: flex; gap: 8px; align-items: flex-start; }
  .electsim-view .left { flex: 1 1 auto; min-width: 0; }
  .electsim-view .plot { overflow-x: hidden; }
  .electsim-view .panel { flex: 0 0 32%; max-height: 88vh; overflow-y: auto; border-left: 1px solid #ddd; padding-left: 6px; position: sticky; top: 40px; }
  .electsim-view .panel .node { margin: 2px 0 6px; }
  .electsim-view .panel .node.current > b { background: #ffe58f; }
  .electsim-view .panel .field { margin-left: 1em; }
  .electsim-view .panel .field .name { color: #666; }
  .electsim-view .panel .field.changed { background: #ffe58f; font-weight: bold; }
  .electsim-view .panel .gone { color: #a33; font-size: 0.9em; }
  .electsim-view .story { max-height: 34vh; overflow-y: auto; border-top: 1px solid #ddd; font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; }
  .electsim-view .story .line { cursor: pointer; white-space: pre-wrap; padding: 0 4px; }
  .electsim-view .story .line:hover { background: #f0f0f0; }
  .electsim-view .story .line.current { background: #ffe58f; }
  .electsim-view .story .line.violation { color: #c00; font-weight: bold; }
  .electsim-view .story .line.hit { outline: 1px dashed #08519c; }
  .electsim-view .story .t { color: #777; }
  .electsim-view .story .who { font-weight: bold; }
  .electsim-view .notes { color: #a33; font-size: 0.85em; margin: 2px 0; }
  .electsim-view .lanes-filter { font-size: 0.85em; color: #555; margin: 2px 0; }
  .electsim-view .lanes-filter label { margin-right: 8px; white-space: nowrap; }
  .electsim-view svg text { font-size: calc(var(--fs, 14px) * 0.8); fill: #222; }
  .electsim-view svg text.lane-name { font-weight: bold; font-size: var(--fs, 14px); }
  .electsim-view svg text.axis { fill: #666; }
  .electsim-view svg text.vote-label { font-size: calc(var(--fs, 14px) * 0.65); }
  .electsim-view svg .step { cursor: pointer; }
  .electsim-view .tip { position: fixed; pointer-events: none; background: #fffbe6; border: 1px solid #c9b458; padding: 4px 6px;
                        max-width: 560px; display: none; font-size: 12px; white-space: pre-wrap; z-index: 3; }
)CSS";

constexpr std::string_view help =
    "Keys: n / p or → / ← step; shift+→ / shift+← the same node; k / K the same kind; v the next violation; f search; "
    "+ / − zoom; 0 around the cursor. Click a dot, a sentence or the overview to move there. The URL keeps the view: copy it to share this moment.";

}  // namespace

std::string_view view_page_style() { return style; }
std::string_view view_page_help() { return help; }

std::string html_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

void write_view_data(std::ostream& out, const std::string& id, const nlohmann::ordered_json& data) {
  out << "<script type=\"application/json\" id=\"" << id << "\">" << script_safe(data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) << "</script>\n";
}

void write_view_page(std::ostream& out, const nlohmann::ordered_json& data) {
  std::string title = data.value("title", std::string("electsim run"));
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << html_escaped(title) << "</title>\n<style>" << style
      << "</style>\n</head>\n<body>\n<h1>" << html_escaped(title) << "</h1>\n<div class=\"help\">" << help << "</div>\n<div id=\"view\"></div>\n";
  write_view_data(out, "electsim-data", data);
  out << "<script>\n"
      << view_page_script()
      << "\nconst electsimView = new ElectsimView(document.getElementById(\"view\"), JSON.parse(document.getElementById(\"electsim-data\").textContent), {hash: true, id: \"v\"});\n"
      << "document.addEventListener(\"keydown\", e => electsimView.keys(e));\n"
      << "window.addEventListener(\"resize\", () => electsimView.render());\n"
      << "document.body.dataset.rendered = \"1\";\n</script>\n</body>\n</html>\n";
}

}  // namespace harness
