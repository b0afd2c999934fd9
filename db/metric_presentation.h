#pragma once
// How each metric a run records (db/metric_names.h) is presented: shown by default or not,
// smoothed or drawn as it is, on a log axis or not, its unit, and which way is better. One table
// (metric_presentation.cpp) that the dashboard, the runs table, reports, comparison tables and
// figures read, instead of each guessing from the name.
#include <optional>
#include <string>
#include <vector>

namespace fathom::db::metric {

struct MetricPresentation {
  bool shown = false;     // drawn by default in the dashboard
  bool smoothed = true;   // a noisy per-update series an EMA may smooth; evaluations (a few
                          // exact values) and schedules are drawn as they are
  bool log_axis = false;  // spans orders of magnitude: a log y axis where a report draws it
  std::string unit;       // "" for a plain number or a ratio
  std::optional<bool> higher_is_better;  // nullopt: no better direction (a rate, a norm, a count)
  bool whole_numbers = false;  // a count of a few things (threads): its axis ticks at whole numbers
};

struct PresentedMetric {
  std::string name;  // a metric's name, or a family's prefix ending in '.' ("gradnorm.")
  MetricPresentation presentation;
};

// The table, in the order metric lists show the metrics.
const std::vector<PresentedMetric>& presented_metrics();

// The row of `name`: its own, else its family's (by prefix). A name in neither -- a new
// "dev_bleu" or "test_nll" -- is presented by its parts: an evaluation (valid_*, test_*, any
// BLEU) is drawn unsmoothed, any BLEU is shown, BLEU and accuracies are better higher, losses,
// perplexities and bits per byte lower.
MetricPresentation presentation_of(const std::string& name);
// Its place in metric lists: its row's index; after every row for a name in none.
int presentation_rank(const std::string& name);
// The group a metric list shows it under: "System" for the system metrics (sys.*,
// core/train/system_metrics.h), "Curvature" for the sharpness curves (curvature.*,
// core/train/sharpness.h), "" for the training curves.
std::string metric_group(const std::string& name);
// presentation_of(name).higher_is_better.
std::optional<bool> higher_is_better(const std::string& name);

}  // namespace fathom::db::metric
