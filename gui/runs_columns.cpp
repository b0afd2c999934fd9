// The runs table's column choices (a part of RunsView, gui/runs_view.h): the config keys shown
// as columns and the final metrics shown, in the user's order, kept per store.
#include <QCryptographicHash>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "base/config/config_schema.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"

namespace fathom::gui {

QString RunsView::metricSettingsKey(const QString& location) {
  // A store's own key: a hash of its location (a URL may hold a password, never written).
  return QStringLiteral("runs/metricColumns/") +
         QString::fromLatin1(
             QCryptographicHash::hash(location.toUtf8(), QCryptographicHash::Sha1).toHex());
}

void RunsView::setMetricColumns(const QStringList& names) {
  model_->setMetricOrder(names);
  if (db_location_.isEmpty()) return;
  QSettings settings;
  if (names.isEmpty())
    settings.remove(metricSettingsKey(db_location_));
  else
    settings.setValue(metricSettingsKey(db_location_), names);
}

QStringList RunsView::metricColumns() const { return model_->metricOrder(); }

void RunsView::chooseMetricColumns() {
  QDialog dialog(this);
  dialog.setWindowTitle(QStringLiteral("Metric columns"));
  auto* list = new QListWidget;
  list->setDragDropMode(QAbstractItemView::InternalMove);  // drag to reorder
  const QStringList chosen = metricColumns(), all = model_->availableMetrics();
  QStringList order = chosen.isEmpty() ? all : chosen;
  for (const QString& name : all)
    if (!order.contains(name)) order << name;
  for (const QString& name : order) {
    auto* item = new QListWidgetItem(name, list);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsDragEnabled);
    item->setCheckState(chosen.isEmpty() || chosen.contains(name) ? Qt::Checked : Qt::Unchecked);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel |
                                       QDialogButtonBox::RestoreDefaults);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  bool defaults = false;
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, &dialog, [&] {
    defaults = true;
    dialog.accept();
  });
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(new QLabel(QStringLiteral("Tick the metrics to show; drag to order them.")));
  layout->addWidget(list);
  layout->addWidget(buttons);
  dialog.resize(360, 520);
  if (dialog.exec() != QDialog::Accepted) return;
  QStringList names;
  for (int i = 0; !defaults && i < list->count(); ++i)
    if (list->item(i)->checkState() == Qt::Checked) names << list->item(i)->text();
  setMetricColumns(names);
}

void RunsView::chooseConfigColumns() {
  QDialog dialog(this);
  dialog.setWindowTitle(QStringLiteral("Config columns"));
  auto* list = new QListWidget;
  const QStringList chosen = configColumns();
  for (const auto& field : config_fields()) {
    auto* item = new QListWidgetItem(QString::fromStdString(field.key), list);
    item->setToolTip(QString::fromStdString(field.doc));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(chosen.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(list);
  layout->addWidget(buttons);
  dialog.resize(360, 520);
  if (dialog.exec() != QDialog::Accepted) return;
  QStringList keys;
  for (int i = 0; i < list->count(); ++i)
    if (list->item(i)->checkState() == Qt::Checked) keys << list->item(i)->text();
  setConfigColumns(keys);
}

}  // namespace fathom::gui
