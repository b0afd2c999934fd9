#include "gui/compare_window.h"

#include <algorithm>

namespace fathom::gui {

CommandReportWindow* open_compare_window(QWidget* parent, const QString& db_location,
                                         std::vector<int64_t> runs, QString* problem) {
  std::sort(runs.begin(), runs.end());
  QStringList args{QStringLiteral("compare")}, ids;
  for (int64_t id : runs) {
    args << QString::number(id);
    ids << QStringLiteral("#%1").arg(id);
  }
  std::vector<ReportOption> options;
  // Three runs or more may be two configurations' seeds: the command tests those over their
  // seeds and the test set, or says why it cannot.
  if (runs.size() >= 3) {
    args << QStringLiteral("--over-seeds");
    options.push_back(ReportOption(
        QStringLiteral("Pair by &seed"), {QStringLiteral("--pair-seeds")},
        QStringLiteral("test the two configurations' differences seed by seed (each train.seed "
                       "gives both the same initialisation and data order); a design to choose "
                       "before seeing the results, not the test that happens to decide"),
        false));
  }
  auto* window = new CommandReportWindow(db_location, args,
                                         QStringLiteral("Comparing runs %1...").arg(ids.join(", ")),
                                         options, parent);
  window->setWindowTitle(
      QStringLiteral("Compare %1 against %2").arg(ids.mid(1).join(", "), ids.front()));
  return show_report_window(window, problem);
}

}  // namespace fathom::gui
