#include "gui/verdicts_window.h"

#include "db/metric_names.h"

namespace fathom::gui {

QStringList verdicts_arguments(const VerdictsRequest& request) {
  const experiments::TableOptions& t = request.table;
  QStringList args{QStringLiteral("export"),    QStringLiteral("verdicts"),
                   QStringLiteral("--sweep"),   request.sweep,
                   QStringLiteral("--rows"),    QString::fromStdString(t.rows),
                   QStringLiteral("--metrics"), QString::fromStdString(t.metric),
                   QStringLiteral("--versus"),  request.versus};
  if (!t.cols.empty()) args << QStringLiteral("--cols") << QString::fromStdString(t.cols);
  if (t.agg == experiments::CellAgg::Best)
    args << QStringLiteral("--agg") << QStringLiteral("best") << QStringLiteral("--select-by")
         << QString::fromStdString(t.select_by);
  if (t.value == experiments::RunValue::Best)
    args << QStringLiteral("--value") << QStringLiteral("best");
  if (t.at)
    args << QStringLiteral("--at")
         << QString::fromStdString(t.at->axis) + "=" +
                (t.at->least ? QStringLiteral("least") : QString::number(t.at->x, 'g', 17));
  return args;
}

bool has_test_over_set(const std::string& metric) {
  return metric.find("bleu") != std::string::npos || metric == db::metric::kValidPpl ||
         metric == db::metric::kTestPpl;
}

bool is_evaluation_metric(const QString& metric) {
  return metric.startsWith(QStringLiteral("valid_")) || metric.startsWith(QStringLiteral("test_"));
}

CommandReportWindow* open_verdicts_window(QWidget* parent, const QString& db_location,
                                          const VerdictsRequest& request, QString* problem) {
  std::vector<ReportOption> options;
  // The test over the set reads what the runs stored at their end: nothing at a budget.
  bool over_set = !request.table.at && has_test_over_set(request.table.metric);
  for (const QString& other : request.other_metrics)
    over_set = over_set || (!request.table.at && has_test_over_set(other.toStdString()));
  if (over_set) {
    options.push_back(ReportOption(
        QStringLiteral("Over the &test set too"), {QStringLiteral("--paired-bootstrap")},
        QStringLiteral("also test each pair over every seed of both arms and the test set at "
                       "once, from the runs' stored hypotheses or segment NLL (Welch's test "
                       "over the seeds alone leaves out the test set's error)"),
        true));
    options.push_back(ReportOption(
        QStringLiteral("Pair by &seed"), {QStringLiteral("--pair-seeds")},
        QStringLiteral("the test over seeds and sentences on the seeds both arms have, paired "
                       "by seed (each train.seed gives both arms the same initialisation and "
                       "data order); a design to choose before seeing the results"),
        false, 0));
  }
  for (const QString& other : request.other_metrics) {
    ReportOption metric(other, {QStringLiteral("--metrics"), other},
                        QStringLiteral("add %1's tests to the Holm family: a study's verdicts are "
                                       "adjusted for every metric it reports, not one table's")
                            .arg(other));
    if (other == request.other_metrics.front()) metric.heading = QStringLiteral("Family also:");
    options.push_back(metric);
  }
  auto* window = new CommandReportWindow(
      db_location, verdicts_arguments(request),
      QStringLiteral("Testing %1 against %2...")
          .arg(QString::fromStdString(request.table.metric), request.versus),
      options, parent);
  window->setCsvArguments({QStringLiteral("--format"), QStringLiteral("csv")});
  window->setWindowTitle(
      QStringLiteral("Verdicts: %1, %2 against %3")
          .arg(request.sweep, QString::fromStdString(request.table.metric), request.versus));
  return show_report_window(window, problem);
}

}  // namespace fathom::gui
