#include "harness/diff_page.h"

#include "harness/view_page.h"

namespace harness {

void write_diff_page(std::ostream& out, const nlohmann::ordered_json& a, const nlohmann::ordered_json& b, const std::string& summary) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>electsim diff</title>\n<style>" << view_page_style()
      << "  h2 { font-size: 15px; margin: 8px 10px 0; }\n  .summary { margin: 4px 10px; white-space: pre-wrap; }\n</style>\n</head>\n<body>\n"
      << "<h1>electsim diff</h1>\n<div class=\"summary\" id=\"summary\">" << html_escaped(summary) << "</div>\n"
      << "<div class=\"help\">" << view_page_help() << " Key d: where the runs part. Click in a run to give it the keys.</div>\n"
      << "<h2>" << html_escaped(a.value("title", std::string("A"))) << "</h2>\n<div id=\"view-a\"></div>\n"
      << "<h2>" << html_escaped(b.value("title", std::string("B"))) << "</h2>\n<div id=\"view-b\"></div>\n";
  write_view_data(out, "data-a", a);
  write_view_data(out, "data-b", b);
  out << "<script>\n" << view_page_script() << R"(
const data = id => JSON.parse(document.getElementById(id).textContent);
let viewA = null, viewB = null;
viewA = new ElectsimView(document.getElementById("view-a"), data("data-a"), {hash: true, id: "a", onCursor: v => viewB && viewB.follow(v.steps[v.view.cursor].t)});
viewB = new ElectsimView(document.getElementById("view-b"), data("data-b"), {id: "b", onCursor: v => viewA.follow(v.steps[v.view.cursor].t)});
let focused = viewA;
document.getElementById("view-a").addEventListener("mousedown", () => { focused = viewA; });
document.getElementById("view-b").addEventListener("mousedown", () => { focused = viewB; });
document.addEventListener("keydown", e => focused.keys(e));
window.addEventListener("resize", () => { viewA.render(); viewB.render(); });
document.body.dataset.rendered = "1";
</script>
</body>
</html>
)";
}

}  // namespace harness
