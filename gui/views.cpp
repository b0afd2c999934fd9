#include "gui/views.h"

#include <stdexcept>

#include <QWidget>

#include "gui/analysis_view.h"
#include "gui/comparison_view.h"
#include "gui/dashboard_view.h"
#include "gui/depth_scaling_view.h"
#include "gui/importance_view.h"
#include "gui/lr_sensitivity_view.h"
#include "gui/parallel_view.h"
#include "gui/probes_view.h"
#include "gui/reach_view.h"
#include "gui/runs_view.h"
#include "gui/sweep_editor.h"
#include "gui/workbench_view.h"

namespace fathom::gui {

const std::vector<ViewEntry>& workbench_views() {
  static const std::vector<ViewEntry> views = {
      {QStringLiteral("&Runs"), QStringLiteral("runs.png"), [] { return new RunsView; }},
      {QStringLiteral("&Dashboard"), QStringLiteral("dashboard.png"),
       [] { return new DashboardView; }},
      {QStringLiteral("S&weep editor"), QStringLiteral("sweep-editor.png"),
       [] { return new SweepEditor; }},
      {QStringLiteral("&Compare"), QStringLiteral("comparison.png"),
       [] { return new ComparisonView; }},
      {QStringLiteral("&Analyses"), QStringLiteral("analyses.png"),
       [] { return new AnalysisView; }},
      {QStringLiteral("&LR sensitivity"), QStringLiteral("lr-sensitivity.png"),
       [] { return new LrSensitivityView; }},
      {QStringLiteral("&Parallel"), QStringLiteral("parallel.png"),
       [] { return new ParallelView; }},
      {QStringLiteral("Pro&bes"), QStringLiteral("probes.png"), [] { return new ProbesView; }},
      {QStringLiteral("&Importance"), QStringLiteral("importance.png"),
       [] { return new ImportanceView; }},
      {QStringLiteral("Scalin&g"), QStringLiteral("scaling.png"),
       [] { return new DepthScalingView; }},
      {QStringLiteral("Time to targ&et"), QStringLiteral("time-to-target.png"),
       [] { return new ReachView; }},
  };
  return views;
}

WorkbenchView& as_view(QWidget* widget) {
  auto* view = dynamic_cast<WorkbenchView*>(widget);
  if (!view)
    throw std::logic_error(std::string("a view in gui/views.cpp is not a WorkbenchView: ") +
                           widget->metaObject()->className());
  return *view;
}

}  // namespace fathom::gui
