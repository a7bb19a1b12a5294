// electsim diff A.yaml [B.yaml]: two runs aligned event by event, and where they first part
// (harness/run_diff.h): a bug switch on and off, two seeds (--seed-a, --seed-b), two versions
// (--zookeeper-version-b). Text on standard output; --view OUT.html the two viewers side by side.
// Exit 0 when the runs are the same event for event, 1 when they differ, 2 on bad input.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/limits.h"
#include "cli/output_file.h"
#include "harness/diff_page.h"
#include "harness/run_diff.h"
#include "harness/view.h"

namespace cli {

namespace {

std::string seconds(sim::Instant time) { return sim::format_instant(time); }

std::string describe(const harness::Scenario& scenario, const harness::RunResult& result) {
  std::string text = scenario.name + " (seed " + std::to_string(result.seed);
  if (!scenario.bugs.empty()) {
    text += ", bugs:";
    for (const std::string& bug : scenario.bugs) text += " " + bug;
  }
  text += ", ZooKeeper " + scenario.zookeeper.version + ")";
  return text;
}

std::string verdicts(const harness::RunResult& result) {
  std::string text;
  for (const auto& [name, verdict] : result.properties) {
    if (verdict != properties::Verdict::violated) continue;
    text += (text.empty() ? "" : ", ") + name;
  }
  return text.empty() ? "no property violated" : "violated: " + text;
}

void print_event(const char* who, const harness::DiffEvent& event) {
  std::cout << "  " << who << " #" << event.index << "  " << seconds(event.time) << "  " << event.node << "  " << event.kind << "  " << event.fields << "\n";
}

void print_sentences(const char* who, const std::vector<harness::DiffSentence>& sentences) {
  for (const harness::DiffSentence& sentence : sentences) {
    std::cout << "  " << who << seconds(sentence.time) << "  " << sentence.node << "  " << sentence.text << "\n";
  }
}

}  // namespace

int command_diff(const Arguments& arguments) {
  std::string file_a, file_b, view_path, version_b;
  Seed seed_a, seed_b;
  bool json = false;
  po::options_description options("diff options");
  options.add_options()
      ("a", po::value(&file_a), "the first scenario file")
      ("b", po::value(&file_b), "the second (default: the first again, to compare seeds)")
      ("seed-a", po::value(&seed_a), "run A with this seed instead of its file's")
      ("seed-b", po::value(&seed_b), "run B with this seed instead of its file's")
      ("zookeeper-version-b", po::value(&version_b), "run B's servers as this ZooKeeper release (3.8.0, 3.8.5, 3.9.3)")
      ("view", po::value(&view_path), "write both runs' viewers, moving together, to this HTML file")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line");
  LimitOptions limits;
  add_limit_options(options, limits, true);
  po::positional_options_description positional;
  positional.add("a", 1).add("b", 1);
  po::variables_map values;
  if (!parse_options("diff", "A.yaml [B.yaml] [--seed-a S] [--seed-b S] [--zookeeper-version-b V] [--view OUT.html] [--json]", arguments, options,
                     positional, values)) {
    return exit_ok;
  }
  if (file_a.empty()) throw UsageError("diff: a scenario file is required (see: electsim diff --help)");
  if (file_b.empty()) file_b = file_a;
  std::size_t size_max = file_size_limit("diff", limits);
  harness::Scenario a = load_scenario(file_a, size_max);
  harness::Scenario b = load_scenario(file_b, size_max);
  if (values.count("seed-a") != 0) a.seed = seed_a.value;
  if (values.count("seed-b") != 0) b.seed = seed_b.value;
  apply_zookeeper_version("diff", version_b, b);
  if (a.recipe != b.recipe) {
    throw UsageError("diff: " + file_a + " runs recipe " + std::string(harness::recipe_name(a.recipe)) + " and " + file_b + " recipe " +
                     std::string(harness::recipe_name(b.recipe)) + ": they part at the first event, there is nothing to align");
  }
  std::optional<harness::AtomicFile> view_file;
  open_output_file("diff", "view", view_path, view_file);

  harness::DiffOptions diff_options;
  diff_options.limits = simulation_limits("diff", limits);
  harness::ViewSink view_a, view_b;
  if (view_file) {
    diff_options.view_a = &view_a;
    diff_options.view_b = &view_b;
  }
  harness::RunDiff diff = harness::diff_runs(a, b, diff_options);

  std::string what_a = describe(a, diff.a), what_b = describe(b, diff.b);
  std::string summary;
  if (!diff.divergence) {
    summary = "A " + what_a + " and B " + what_b + " are the same run: " + std::to_string(diff.events_a) + " events, one for one.";
  } else {
    summary = "A " + what_a + " and B " + what_b + " agree on their first " + std::to_string(*diff.divergence) + " events" +
              (diff.divergence_time ? " and part at " + seconds(*diff.divergence_time) : std::string()) + " (event #" +
              std::to_string(*diff.divergence) + "). A: " + std::to_string(diff.events_a) + " events, " + verdicts(diff.a) + ". B: " +
              std::to_string(diff.events_b) + " events, " + verdicts(diff.b) + ".";
  }
  if (view_file) {
    auto page_data = [&](harness::ViewSink& view, const harness::Scenario& scenario, const harness::RunResult& result, const char* which) {
      nlohmann::ordered_json data = view.data(sim::epoch + scenario.duration, std::string(which) + ": " + describe(scenario, result), result.violations);
      if (diff.divergence_time) data["marks"] = nlohmann::ordered_json::array({{{"t", (*diff.divergence_time - sim::epoch).count()}, {"x", "the runs part here"}}});
      return data;
    };
    harness::write_diff_page(view_file->stream(), page_data(view_a, a, diff.a, "A"), page_data(view_b, b, diff.b, "B"), summary);
    commit_output_file("diff", "view", view_file);
  }

  if (json) {
    nlohmann::ordered_json out{{"same", !diff.divergence}, {"events_a", diff.events_a}, {"events_b", diff.events_b}};
    out["divergence"] = diff.divergence ? nlohmann::ordered_json(*diff.divergence) : nlohmann::ordered_json(nullptr);
    out["divergence_time"] = diff.divergence_time ? nlohmann::ordered_json(seconds(*diff.divergence_time)) : nlohmann::ordered_json(nullptr);
    out["trace_hash_a"] = sim::format_hash(diff.a.trace_hash);
    out["trace_hash_b"] = sim::format_hash(diff.b.trace_hash);
    std::cout << out.dump() << "\n";
    return diff.divergence ? exit_failed : exit_ok;
  }
  std::cout << summary << "\n";
  if (!diff.divergence) return exit_ok;
  std::cout << "\nboth, just before:\n";
  for (const harness::DiffEvent& event : diff.before) print_event("=", event);
  std::cout << "then:\n";
  for (const harness::DiffEvent& event : diff.a_after) print_event("A", event);
  if (diff.a_after.empty()) std::cout << "  A  (the run ends)\n";
  for (const harness::DiffEvent& event : diff.b_after) print_event("B", event);
  if (diff.b_after.empty()) std::cout << "  B  (the run ends)\n";
  std::cout << "\nthe story before it (both):\n";
  print_sentences("= ", diff.told_before);
  std::cout << "A goes on:\n";
  print_sentences("A ", diff.a_told_after);
  std::cout << "B goes on:\n";
  print_sentences("B ", diff.b_told_after);
  return exit_failed;
}

}  // namespace cli
