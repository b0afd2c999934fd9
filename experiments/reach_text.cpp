// The time-to-target table in Markdown (experiments/reach_text.h).
#include "experiments/reach_text.h"

#include <algorithm>
#include <cmath>

#include "base/metrics/statistics.h"
#include "experiments/critical_batch_interval.h"
#include "experiments/report_numbers.h"

namespace fathom::experiments {
namespace {

std::string with_ci(double mean, double ci, const char* format = "%.1f") {
  return std::isfinite(ci) ? cell_number(mean, format) + " ± " + cell_number(ci, format)
                           : cell_number(mean, format);
}

// A cell's B_simple: infinite where a run's |G|^2 estimate was not positive (the mean gradient
// not resolved from the noise: bounded below only).
std::string b_simple_text(double b) {
  return std::isinf(b) && b > 0 ? "∞" : cell_number(b, "%.0f");
}

// Whether any run of the table read its noise scale while it trained.
bool any_b_simple(const ReachTable& t) {
  return std::any_of(t.cells.begin(), t.cells.end(),
                     [](const ReachCell& c) { return c.b_simple_runs > 0; });
}

// An interval's end: "∞" where the draws leave it unbounded.
std::string bound_text(double v, const char* format) {
  return std::isinf(v) ? "∞" : cell_number(v, format);
}

// The bootstrap's line (experiments/critical_batch_interval.h).
std::string interval_text(const CriticalBatchFit& f) {
  std::string text = "  95 % bootstrap interval of B_crit " + bound_text(f.b_crit_lo, "%.0f") +
                     " to " + bound_text(f.b_crit_hi, "%.0f") + " target tokens (" +
                     std::to_string(f.draws) +
                     " draws resampling each cell's runs, each row's best cell chosen again: "
                     "every row kept its own in " +
                     cell_number(100 * f.best_kept, "%.0f") + " %";
  if (f.unfit > 0)
    text += "; " + std::to_string(f.unfit) + " draws with under 3 complete rows left out";
  if (f.interval_df >= 1) {  // base/metrics/statistics.h: expanded_percentile_tail
    const double tail = 100 * expanded_percentile_tail(f.interval_df);
    text += "; its ends the draws' " + cell_number(tail, "%.2f") + " % and " +
            cell_number(100 - tail, "%.2f") + " % points, expanded for the best cells' " +
            cell_number(f.interval_df, "%.0f") + " degrees of freedom";
  }
  return text + ")\n";
}

// Where some draws' best cells read no B_simple (they widen the ratio's interval).
std::string ratio_draws_text(const CriticalBatchFit& f) {
  if (f.ratio_draws >= f.draws) return "";
  return "; in " + std::to_string(f.draws - f.ratio_draws) +
         " draws a best cell read no B_simple, taken as 0 and as unbounded";
}

}  // namespace

TextTable reach_text_table(const ReachTable& t, const ReachOptions& o) {
  const bool cols = !o.cols.empty(), noise = any_b_simple(t);
  TextTable table;
  table.header = {o.rows};
  if (cols) table.header.push_back(o.cols);
  for (const std::string& h :
       {std::string("reached"), "updates to " + o.metric + " " + cell_number(o.target),
        std::string("target tokens to it"), std::string("tokens per update")})
    table.header.push_back(h);
  if (noise) table.header.push_back("B_simple there");
  for (const auto& c : t.cells) {
    std::vector<std::string> row{c.row};
    if (cols) row.push_back(c.col);
    row.push_back(std::to_string(c.reached) + "/" + std::to_string(c.runs));
    row.push_back(with_ci(c.updates, c.updates_ci95));
    row.push_back(with_ci(c.tokens, c.tokens_ci95, "%.0f"));
    row.push_back(cell_number(c.tokens_per_update));
    if (noise) row.push_back(b_simple_text(c.b_simple));
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string reach_markdown(const ReachTable& t, const ReachOptions& o) {
  const bool noise = any_b_simple(t);
  const TextTable table = reach_text_table(t, o);
  const size_t updates = o.cols.empty() ? 2 : 3;  // the updates column, bold in each row's best
  std::string text = "|", rule = "|";
  for (size_t i = 0; i < table.header.size(); ++i) {
    text += " " + table.header[i] + " |";
    rule += i < updates - 1 ? "---|" : "---:|";
  }
  text += "\n" + rule + "\n";
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const bool best = std::find(t.best.begin(), t.best.end(), i) != t.best.end();
    text += "|";
    for (size_t k = 0; k < table.rows[i].size(); ++k)
      text +=
          " " + (best && k == updates ? "**" + table.rows[i][k] + "**" : table.rows[i][k]) + " |";
    text += "\n";
  }
  text +=
      "\n*mean over the runs that reached the target ± half-width of the 95 % t-interval; "
      "bold: each row's fewest updates among its cells whose every run reached it*\n";
  if (noise)
    text +=
        "\n*B_simple there: the gradient noise scale in target tokens the runs read while they "
        "trained (train.noise_scale), pooled over the log window where each reached the target "
        "and the one before, the mean over the cell's runs*\n";
  for (const auto& n : t.notes) text += "\n*" + n + "*\n";
  return text;
}

std::optional<CriticalBatchFit> fit_best_cells(const ReachTable& t) {
  std::vector<double> batch, updates;
  for (size_t i : t.best) {
    batch.push_back(t.cells[i].tokens_per_update);
    updates.push_back(t.cells[i].updates);
  }
  auto fit = fit_critical_batch(batch, updates);
  if (fit) add_critical_batch_interval(*fit, t);
  return fit;
}

std::optional<double> best_cells_b_simple(const ReachTable& t) {
  if (t.best.empty()) return std::nullopt;
  double log_sum = 0;
  for (size_t i : t.best) {
    const double b = t.cells[i].b_simple;
    if (!(b > 0) || !std::isfinite(b)) return std::nullopt;
    log_sum += std::log(b);
  }
  return std::exp(log_sum / static_cast<double>(t.best.size()));
}

std::string critical_batch_text(const std::optional<CriticalBatchFit>& f,
                                std::optional<double> b_simple) {
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
  if (f->draws > 0) text += interval_text(*f);
  if (b_simple) {
    text += "  against B_simple where the best cells got there (geometric mean over them) " +
            cell_number(*b_simple, "%.0f") + " target tokens: B_crit / B_simple " +
            cell_number(f->b_crit / *b_simple, "%.2f");
    if (!std::isnan(f->ratio_lo))
      text += " (95 % interval " + bound_text(f->ratio_lo, "%.2f") + " to " +
              bound_text(f->ratio_hi, "%.2f") + ratio_draws_text(*f) + "): " +
              (f->ratio_lo > 1   ? "B_crit above B_simple"
               : f->ratio_hi < 1 ? "B_crit below B_simple"
                                 : "inconclusive, B_crit and B_simple not told apart");
    text += "\n";
  }
  return text;
}

}  // namespace fathom::experiments
