// The runs table's column choices (a part of RunsView, gui/runs_view.h): the config keys shown
// as columns and the final metrics shown, each in the user's order and kept per store (QSettings
// under a hash of the store's location); a store never chosen for shows its sweep axes and
// every metric.
#include <map>

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

QString RunsView::columnSettingsKey(const QString& what, const QString& location) {
  // A store's own key: a hash of its location (a URL may hold a password, never written).
  return QStringLiteral("runs/%1/").arg(what) +
         QString::fromLatin1(
             QCryptographicHash::hash(location.toUtf8(), QCryptographicHash::Sha1).toHex());
}

void RunsView::setConfigColumns(const QStringList& keys) {
  columns_chosen_ = true;  // the sweep axes no longer stand in for a choice
  model_->setConfigColumns(keys);
  if (!db_location_.isEmpty())
    QSettings().setValue(columnSettingsKey(QStringLiteral("configColumns"), db_location_), keys);
}

void RunsView::resetConfigColumns() {
  columns_chosen_ = false;
  if (!db_location_.isEmpty())
    QSettings().remove(columnSettingsKey(QStringLiteral("configColumns"), db_location_));
  model_->setConfigColumns(QStringList(axes_.begin(), axes_.end()));
}

void RunsView::restoreColumns() {
  QSettings settings;
  const QString config = columnSettingsKey(QStringLiteral("configColumns"), db_location_);
  columns_chosen_ = settings.contains(config);
  model_->setConfigColumns(columns_chosen_ ? settings.value(config).toStringList()
                                           : QStringList());  // the axes, once read
  // A store never chosen for shows every metric.
  model_->setMetricOrder(
      settings.value(columnSettingsKey(QStringLiteral("metricColumns"), db_location_))
          .toStringList());
}

QStringList RunsView::configColumns() const { return model_->configColumns(); }

void RunsView::setMetricColumns(const QStringList& names) {
  model_->setMetricOrder(names);
  if (db_location_.isEmpty()) return;
  QSettings settings;
  if (names.isEmpty())
    settings.remove(columnSettingsKey(QStringLiteral("metricColumns"), db_location_));
  else
    settings.setValue(columnSettingsKey(QStringLiteral("metricColumns"), db_location_), names);
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
  list->setDragDropMode(QAbstractItemView::InternalMove);  // drag to reorder
  const QStringList chosen = configColumns();
  std::map<QString, QString> docs;
  for (const auto& field : config_fields())
    docs[QString::fromStdString(field.key)] = QString::fromStdString(field.doc);
  QStringList order = chosen;  // the columns shown first, in their order; then the schema's
  for (const auto& field : config_fields())
    if (!order.contains(QString::fromStdString(field.key)))
      order << QString::fromStdString(field.key);
  for (const QString& key : order) {
    auto* item = new QListWidgetItem(key, list);
    item->setToolTip(docs[key]);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsDragEnabled);
    item->setCheckState(chosen.contains(key) ? Qt::Checked : Qt::Unchecked);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel |
                                       QDialogButtonBox::RestoreDefaults);
  buttons->button(QDialogButtonBox::RestoreDefaults)
      ->setToolTip(QStringLiteral("the sweep axes of the runs shown"));
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  bool defaults = false;
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, &dialog, [&] {
    defaults = true;
    dialog.accept();
  });
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(new QLabel(
      QStringLiteral("Tick the config keys to show; drag to order them. Kept for this store.")));
  layout->addWidget(list);
  layout->addWidget(buttons);
  dialog.resize(360, 520);
  if (dialog.exec() != QDialog::Accepted) return;
  if (defaults) {
    resetConfigColumns();
    return;
  }
  QStringList keys;
  for (int i = 0; i < list->count(); ++i)
    if (list->item(i)->checkState() == Qt::Checked) keys << list->item(i)->text();
  setConfigColumns(keys);
}

}  // namespace fathom::gui
