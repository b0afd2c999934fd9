#pragma once
// `fathom compare` of runs chosen in the runs view, in a window of its own
// (gui/command_report_window.h): the settings that differ, the final metrics, each run's curves
// against the first, and the paired bootstrap tests of test BLEU and test perplexity (a language
// model's cut text in circular blocks).
#include <cstdint>
#include <vector>

#include <QString>

#include "gui/command_report_window.h"

class QWidget;

namespace fathom::gui {

// Runs `fathom compare` on `runs` (two or more; the lowest id is the baseline the others are
// tested against -- a fork's parent, or the older run) and opens the window, deleted on close.
// Three runs or more: also `--over-seeds`, the test of two configurations over their seeds, and
// a "Pair by seed" box (`--pair-seeds`, off: a design chosen before the results, not after).
// nullptr and *problem when the command could not run or failed.
CommandReportWindow* open_compare_window(QWidget* parent, const QString& db_location,
                                         std::vector<int64_t> runs, QString* problem);

}  // namespace fathom::gui
