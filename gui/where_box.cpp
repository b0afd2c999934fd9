#include "gui/where_box.h"

#include <utility>

#include <QBoxLayout>
#include <QLabel>
#include <QLineEdit>

#include "base/util/error.h"

namespace fathom::gui {

void add_labelled(QBoxLayout& bar, const QString& label, QWidget* box) {
  auto* l = new QLabel(label);
  l->setBuddy(box);
  bar.addWidget(l);
  bar.addWidget(box);
}

void add_sweep_choosers(QBoxLayout& bar, QWidget* sweep, QWidget* metric, QWidget* value) {
  add_labelled(bar, QStringLiteral("S&weep"), sweep);
  add_labelled(bar, QStringLiteral("&Metric"), metric);
  add_labelled(bar, QStringLiteral("&Value"), value);
}

QLineEdit* add_where_box(QBoxLayout& bar) {
  auto* box = new QLineEdit;
  box->setPlaceholderText(QStringLiteral("all runs, or e.g. decoder_layers=24"));
  box->setClearButtonEnabled(true);
  box->setToolTip(
      QStringLiteral("only the sweep's runs this filter keeps (the Runs tab's filter language: "
                     "keys, metrics, status; and, or, not)"));
  add_labelled(bar, QStringLiteral("W&here"), box);
  bar.setStretchFactor(box, 1);
  return box;
}

std::optional<QString> where_error(const std::exception& e) {
  const auto* bad = dynamic_cast<const InputError*>(&e);
  if (!bad || bad->field() != "--where") return std::nullopt;
  return QStringLiteral("filter: ") + QString::fromStdString(bad->message());
}

}  // namespace fathom::gui
