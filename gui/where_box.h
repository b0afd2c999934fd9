#pragma once
// The "Where" box of the views that draw one sweep (LR sensitivity, Parallel): a runs filter
// (experiments/run_query.h, as on the Runs tab) that keeps part of the sweep, as the exports'
// --where do (experiments/sweep_runs.h).
#include <exception>
#include <optional>

#include <QString>

class QBoxLayout;
class QLineEdit;
class QWidget;

namespace fathom::gui {

// Adds a labelled, empty "Where" box to `bar` and returns it.
QLineEdit* add_where_box(QBoxLayout& bar);

// Adds `box` to `bar` after its label, whose mnemonic focuses it ("R&ows").
void add_labelled(QBoxLayout& bar, const QString& label, QWidget* box);

// Adds the sweep view's choosers to `bar`, each after its label (the label's mnemonic focuses it):
// "S&weep", "&Metric", "&Value".
void add_sweep_choosers(QBoxLayout& bar, QWidget* sweep, QWidget* metric, QWidget* value);

// What is wrong with the filter, when `e` is the exports' --where error ("filter: ..."): a
// filter being typed is no store error for the window to report.
std::optional<QString> where_error(const std::exception& e);

}  // namespace fathom::gui
