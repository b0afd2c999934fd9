#pragma once
// The comparison view's tests as a study reports them: `fathom export verdicts` of the table
// shown (its sweep, rows, columns, metric, cells and reference row) in a window of its own
// (gui/command_report_window.h) -- the Holm family with the seeds each inconclusive test would
// need and, for BLEU and perplexity, the test over the seeds and the test set at once from the
// runs' stored evaluation files, optionally paired by seed; the family widened to the sweep's
// other evaluation metrics where asked.
#include <QString>
#include <QStringList>

#include "experiments/comparison_table.h"
#include "gui/command_report_window.h"

class QWidget;

namespace fathom::gui {

struct VerdictsRequest {
  QString sweep;
  experiments::TableOptions table;  // rows, cols, metric, agg, select_by, value, at
  QString versus;                   // the reference row
  // The sweep's other evaluation metrics (valid_*, test_*): each a box that adds its tests to
  // the Holm family, as a study's verdicts are adjusted for every metric it reports.
  QStringList other_metrics;
};

// `export verdicts` and its arguments for the table (no options' arguments).
QStringList verdicts_arguments(const VerdictsRequest& request);
// Whether the metric has a test over its evaluation set (BLEU, valid or test perplexity).
bool has_test_over_set(const std::string& metric);
// Whether the metric is one a study's verdicts draw on: a validation or test metric.
bool is_evaluation_metric(const QString& metric);

// Runs the command and opens the window, deleted on close; nullptr and *problem when it failed.
CommandReportWindow* open_verdicts_window(QWidget* parent, const QString& db_location,
                                          const VerdictsRequest& request, QString* problem);

}  // namespace fathom::gui
