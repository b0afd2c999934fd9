// The time-to-target table in Markdown (experiments/reach_text.h).
#include "experiments/reach_text.h"

#include <algorithm>
#include <cmath>

#include "experiments/report_numbers.h"

namespace fathom::experiments {
namespace {

std::string with_ci(double mean, double ci, const char* format = "%.1f") {
  return std::isfinite(ci) ? cell_number(mean, format) + " ± " + cell_number(ci, format)
                           : cell_number(mean, format);
}

}  // namespace

std::string reach_markdown(const ReachTable& t, const ReachOptions& o) {
  const bool cols = !o.cols.empty();
  std::string text = "| " + o.rows + (cols ? " | " + o.cols : "") + " | reached | updates to " +
                     o.metric + " " + cell_number(o.target) +
                     " | target tokens to it | tokens per update |\n|---" + (cols ? "|---" : "") +
                     "|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < t.cells.size(); ++i) {
    const auto& c = t.cells[i];
    const bool best = std::find(t.best.begin(), t.best.end(), i) != t.best.end();
    text += "| " + c.row + (cols ? " | " + c.col : "") + " | " + std::to_string(c.reached) + "/" +
            std::to_string(c.runs) + " | " + (best ? "**" : "") +
            with_ci(c.updates, c.updates_ci95) + (best ? "**" : "") + " | " +
            with_ci(c.tokens, c.tokens_ci95, "%.0f") + " | " + cell_number(c.tokens_per_update) +
            " |\n";
  }
  text +=
      "\n*mean over the runs that reached the target ± half-width of the 95 % t-interval; "
      "bold: each row's fewest updates among its cells whose every run reached it*\n";
  for (const auto& n : t.notes) text += "\n*" + n + "*\n";
  return text;
}

std::optional<CriticalBatchFit> fit_best_cells(const ReachTable& t) {
  std::vector<double> batch, updates;
  for (size_t i : t.best) {
    batch.push_back(t.cells[i].tokens_per_update);
    updates.push_back(t.cells[i].updates);
  }
  return fit_critical_batch(batch, updates);
}

std::string critical_batch_text(const std::optional<CriticalBatchFit>& f) {
  if (!f)
    return "critical batch: not fitted (it needs the best cells of 3 or more rows of different "
           "batch sizes, each with every run at the target)\n";
  std::string text = "critical batch (McCandlish et al. 2018, eq. 2.11) over " +
                     std::to_string(f->points) + " rows' best cells: S = S_min (1 + B_crit / B), " +
                     "S_min " + cell_number(f->s_min) + " updates, B_crit " +
                     cell_number(f->b_crit) + " target tokens, R² " + cell_number(f->r2, "%.3f") +
                     "\n";
  if (!f->diminishing)
    text +=
        "  no diminishing returns measured (S_min or B_crit not positive): the rows do not "
        "follow the model\n";
  return text;
}

}  // namespace fathom::experiments
