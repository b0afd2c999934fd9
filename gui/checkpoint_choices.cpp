#include "gui/checkpoint_choices.h"

#include <utility>

#include <QComboBox>

namespace fathom::gui {
namespace {

// A checkpoint row's name for --checkpoint ("best", "last", "average", "40") and its label; ""
// for rows that are no model to run (the fallback resume point).
std::pair<QString, QString> checkpoint_choice(const db::Artifact& a) {
  const QString kind = QString::fromStdString(a.kind);
  if (!kind.startsWith("checkpoint_") || kind == "checkpoint_previous") return {};
  const QString name = kind.mid(int(sizeof "checkpoint_") - 1);
  bool is_step = false;
  name.toLongLong(&is_step);
  if (is_step) return {name, QStringLiteral("update %1").arg(name)};
  return {name, a.step ? QStringLiteral("%1 (update %2)").arg(name).arg(*a.step) : name};
}

}  // namespace

void set_checkpoint_choices(QComboBox* box, const std::vector<db::Artifact>& artifacts) {
  const QString chosen = box->currentData().toString();
  box->clear();
  for (const auto& a : artifacts)
    if (const auto [name, label] = checkpoint_choice(a); !name.isEmpty()) box->addItem(label, name);
  const int again = box->findData(chosen.isEmpty() ? QStringLiteral("best") : chosen);
  if (again >= 0) box->setCurrentIndex(again);
}

}  // namespace fathom::gui
