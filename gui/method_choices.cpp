#include "gui/method_choices.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include "gui/fathom_binary.h"

namespace fathom::gui {
namespace {

QMap<QString, QList<MethodChoice>> ask_fathom() {
  QMap<QString, QList<MethodChoice>> out;
  const QString binary = find_fathom_binary();
  if (binary.isEmpty()) return out;
  QProcess process;
  process.start(binary,
                {QStringLiteral("--json"), QStringLiteral("config"), QStringLiteral("--methods")});
  if (!process.waitForFinished(15000) || process.exitCode() != 0) return out;
  const QJsonObject keys = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
  for (auto it = keys.begin(); it != keys.end(); ++it)
    for (const QJsonValue& entry : it.value().toArray())
      out[it.key()].append(
          {entry[QStringLiteral("name")].toString(), entry[QStringLiteral("doc")].toString()});
  return out;
}

}  // namespace

const QMap<QString, QList<MethodChoice>>& method_choices() {
  static const QMap<QString, QList<MethodChoice>> choices = ask_fathom();
  return choices;
}

}  // namespace fathom::gui
