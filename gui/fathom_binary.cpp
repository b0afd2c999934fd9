#include "gui/fathom_binary.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

#include "db/run_paths.h"

namespace fathom::gui {

QString find_fathom_binary() {
  const QString env = qEnvironmentVariable("FATHOM_BIN");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  return find_fathom_binary_from(QCoreApplication::applicationDirPath());
}

QString find_fathom_binary_from(const QString& dir) {
  // Beside it (an install), then the build tree: build/fathom beside build/gui/fathom-gui.
  for (const QString& candidate : {dir + "/fathom", dir + "/../fathom", dir + "/../cli/fathom"}) {
    const QFileInfo info(candidate);
    if (info.isFile() && info.isExecutable()) return info.canonicalFilePath();
  }
  return QStandardPaths::findExecutable(QStringLiteral("fathom"));
}

QProcessEnvironment fathom_environment(const QString& db_location) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (!db_location.isEmpty()) env.insert(QStringLiteral("FATHOM_DB"), db_location);
  const QString artifacts = qEnvironmentVariable(db::kArtifactsEnv);  // fathom-gui --artifacts
  if (!artifacts.isEmpty()) env.insert(QString::fromLatin1(db::kArtifactsEnv), artifacts);
  return env;
}

bool set_up_fathom_process(QProcess& process, const QStringList& args, const QString& db_location,
                           QString* problem) {
  const QString binary = find_fathom_binary();
  if (binary.isEmpty()) {
    *problem = QStringLiteral(
        "the fathom command line was not found beside fathom-gui or in PATH (set $FATHOM_BIN)");
    return false;
  }
  process.setProgram(binary);
  process.setArguments(args);
  process.setProcessEnvironment(fathom_environment(db_location));
  return true;
}

}  // namespace fathom::gui
