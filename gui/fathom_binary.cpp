#include "gui/fathom_binary.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

namespace fathom::gui {

QString find_fathom_binary() {
  const QString env = qEnvironmentVariable("FATHOM_BIN");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QString dir = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {dir + "/fathom", dir + "/../cli/fathom"}) {
    const QFileInfo info(candidate);
    if (info.isFile() && info.isExecutable()) return info.canonicalFilePath();
  }
  return QStandardPaths::findExecutable(QStringLiteral("fathom"));
}

}  // namespace fathom::gui
