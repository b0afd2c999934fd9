#include "gui/run_details.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace fathom::gui {
namespace {

QString when(double t) {
  return t > 0 ? QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(t * 1000)).toString(Qt::ISODate)
               : QStringLiteral("-");
}

}  // namespace

RunDetailsDialog::RunDetailsDialog(const db::Store& store, const db::RunRecord& run,
                                   QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(QStringLiteral("Run %1 %2").arg(run.id).arg(QString::fromStdString(run.name)));
  // Rows are laid out at the end, in one column as wide as the longest key plus two spaces:
  // a fixed width ran long keys into their values ("decode_time_s5.98552").
  struct Row {
    QString key, value;
    bool heading;
  };
  std::vector<Row> rows;
  auto line = [&rows](const QString& key, const QString& value) {
    rows.push_back({key, value, false});
  };
  auto heading = [&rows](const QString& title) { rows.push_back({title, {}, true}); };
  line("id", QString::number(run.id));
  line("name", QString::fromStdString(run.name));
  line("sweep", QString::fromStdString(run.sweep));
  line("status", QString::fromStdString(run.status) +
                     (run.diverged_step ? QStringLiteral(" at update %1").arg(*run.diverged_step)
                                        : QString()));
  if (!run.error.empty()) line("error", QString::fromStdString(run.error));
  line("updates", QString::number(run.updates));
  line("created", when(run.created_at));
  line("started", when(run.started_at));
  line("finished", when(run.finished_at));
  line("heartbeat", when(run.heartbeat_at));
  line("host", QString::fromStdString(run.host + " " + run.device));
  line("git", QString::fromStdString(run.git_rev));
  heading("final metrics");
  for (const auto& [name, value] : run.final_metrics)
    line("  " + QString::fromStdString(name),
         std::isnan(value) ? "NaN" : QString::number(value, 'g', 6));
  heading("tags");
  for (const auto& [key, value] : store.tags(run.id))
    line("  " + QString::fromStdString(key), QString::fromStdString(value));
  heading("artifacts");
  for (const auto& a : store.artifacts(run.id))
    line("  " + QString::fromStdString(a.kind),
         QString::fromStdString(a.path) +
             (a.step ? QStringLiteral(" (update %1)").arg(*a.step) : QString()));
  qsizetype width = 0;
  for (const Row& r : rows)
    if (!r.heading) width = std::max(width, r.key.size());
  QString text;
  for (const Row& r : rows)
    text += r.heading ? "\n" + r.key + "\n" : r.key.leftJustified(width + 2) + r.value + "\n";
  text += "\nconfig\n" + QString::fromStdString(run.config_yaml);

  auto* view = new QPlainTextEdit(text);
  view->setReadOnly(true);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(view);
  layout->addWidget(buttons);
  resize(720, 640);
}

}  // namespace fathom::gui
