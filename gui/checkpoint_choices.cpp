#include "gui/checkpoint_choices.h"

#include <map>
#include <utility>
#include <vector>

#include <QComboBox>

#include "db/averaged_checkpoints.h"

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
  // The named models first (best, last, average), then the kept updates in order, then means.
  std::vector<std::pair<QString, QString>> named;
  std::map<long long, std::pair<QString, QString>> kept;
  for (const auto& a : artifacts)
    if (auto choice = checkpoint_choice(a); !choice.first.isEmpty()) {
      bool is_step = false;
      const long long step = choice.first.toLongLong(&is_step);
      if (is_step)
        kept[step] = std::move(choice);
      else
        named.push_back(std::move(choice));
    }
  for (const auto& [name, label] : named) box->addItem(label, name);
  for (const auto& [step, choice] : kept) box->addItem(choice.second, choice.first);
  for (int n : {2, 3, 5, 10})
    if (n <= static_cast<int>(kept.size()))
      box->addItem(QStringLiteral("mean of the last %1 kept").arg(n),
                   QStringLiteral("mean:%1").arg(n));
  const int again = box->findData(chosen.isEmpty() ? QStringLiteral("best") : chosen);
  if (again >= 0) box->setCurrentIndex(again);
}

QStringList checkpoint_arguments(const QString& choice) {
  if (choice.startsWith(QStringLiteral("mean:")))
    return {QStringLiteral("--average"), choice.mid(5)};
  return {QStringLiteral("--checkpoint"), choice};
}

std::string recorded_checkpoint(const QString& choice, const std::vector<db::Artifact>& artifacts) {
  if (!choice.startsWith(QStringLiteral("mean:"))) return choice.toStdString();
  const int n = choice.mid(5).toInt();
  const auto newest =
      db::checkpoints_to_average(db::kept_checkpoints(artifacts, ""), n, false, {}, false);
  if (n <= 0 || static_cast<int>(newest.size()) < n) return "";
  return db::averaged_checkpoints_label(newest);
}

}  // namespace fathom::gui
