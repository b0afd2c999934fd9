#include "experiments/report_samples.h"

#include <cmath>
#include <optional>

#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/valid_samples.h"
#include "experiments/text_table.h"

namespace fathom::experiments {
namespace {

// A table cell holds one line (text_table_to_markdown escapes the rest); "" reads as a gap.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s.empty() ? "(empty)" : s;
}

// The run with the best finite `select_by`, or the only run; null when none qualifies.
const db::RunRecord* chosen_run(const std::vector<db::RunRecord>& runs,
                                const std::string& select_by) {
  if (runs.size() == 1) return &runs[0];
  const bool higher = db::metric::higher_is_better(select_by).value_or(false);
  const db::RunRecord* best = nullptr;
  double best_value = 0;
  for (const auto& r : runs) {
    const auto it = r.final_metrics.find(select_by);
    if (it == r.final_metrics.end() || !std::isfinite(it->second)) continue;
    if (!best || (higher ? it->second > best_value : it->second < best_value))
      best = &r, best_value = it->second;
  }
  return best;
}

}  // namespace

void samples_section(std::ostream& out, const db::Store& store,
                     const std::vector<db::RunRecord>& runs, const std::string& select_by) {
  const db::RunRecord* run = chosen_run(runs, select_by);
  if (!run) return;
  const auto samples = db::validation_samples(store.tags(run->id));
  if (samples.empty()) return;
  const auto& [update, last] = *samples.rbegin();
  const bool top_k = !last.empty() && last[0].top_k > 0;
  const bool language_model = db::continues_prompts(run->config_json);
  out << "\n## Samples\n\n";
  if (runs.size() > 1)
    out << "Run " << run->id << " (`" << run->name << "`), best " << select_by << "; ";
  out << "the first validation " << (language_model ? "texts" : "sentences") << " at update "
      << update << (language_model ? ", continued greedily" : ", translated greedily")
      << (top_k ? " and sampled from the top " + std::to_string(last[0].top_k) : "") << ".\n\n";
  TextTable table;
  table.header = language_model ? std::vector<std::string>{"prompt", "text", "greedy"}
                                : std::vector<std::string>{"source", "reference", "greedy"};
  if (language_model && top_k) table.header.push_back("top-k");
  for (const auto& s : last) {
    table.rows.push_back({one_line(s.source), one_line(s.reference), one_line(s.hypothesis)});
    if (language_model && top_k) table.rows.back().push_back(one_line(s.sampled));
  }
  out << text_table_to_markdown(table) << "\n";  // a blank line ends the table
}

}  // namespace fathom::experiments
