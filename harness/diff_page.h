// `electsim diff A.yaml B.yaml --view OUT.html`: the two runs' viewers on one page, one above the
// other, moving together (a step in one moves the other to the same simulated time), with the
// first divergence marked in both (a blue dashed line; key d or the "divergence" button).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace harness {

// `a` and `b` are ViewSink::data() of each run, titled "A: ..." and "B: ..."; `summary` is the
// divergence said in one paragraph.
void write_diff_page(std::ostream& out, const nlohmann::ordered_json& a, const nlohmann::ordered_json& b, const std::string& summary);

}  // namespace harness
