// fathom-gui [--db PATH|URL] [--artifacts DIR] [--sweep FILE] [--screenshot DIR]: the Fathom
// workbench.
// Training never runs in this process: sweeps and resumed runs are `fathom` worker processes.
#include <cstdio>
#include <optional>
#include <string_view>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include "db/run_paths.h"

#include "gui/app_icon.h"
#include "gui/main_window.h"
#include "gui/runs_view.h"
#include "gui/sweep_editor.h"

namespace {

// --help needs no display: answered before QApplication, which aborts without one.
bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "-?" || a == "-v" ||
        a == "--version")
      return true;
  }
  return false;
}

// --screenshot DIR --screenshot-size WxH: a PNG of each view at that window size, then exit.
int save_screenshots(fathom::gui::MainWindow& window, const QString& dir, const QString& size) {
  const QStringList wh = size.split(QLatin1Char('x'));
  const int w = wh.size() == 2 ? wh[0].toInt() : 0, h = wh.size() == 2 ? wh[1].toInt() : 0;
  if (w < 200 || h < 150) {
    std::fprintf(stderr, "--screenshot-size: expected WxH, e.g. 1100x700\n");
    return 2;
  }
  window.resize(w, h);
  window.show();
  for (const QString& saved : window.saveScreenshots(dir)) std::printf("%s\n", qPrintable(saved));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<QCoreApplication> help_only;
  std::optional<QApplication> gui;
  if (asks_for_help(argc, argv))
    help_only.emplace(argc, argv);
  else
    gui.emplace(argc, argv);
  QCoreApplication& app = help_only ? *help_only : static_cast<QCoreApplication&>(*gui);
  QCoreApplication::setOrganizationName(QStringLiteral("fathom"));
  QCoreApplication::setApplicationName(QStringLiteral("fathom-gui"));
  QCoreApplication::setApplicationVersion(QStringLiteral(FATHOM_VERSION));  // Help > About
  if (gui) {
    QApplication::setWindowIcon(fathom::gui::app_icon());
    QGuiApplication::setDesktopFileName(QStringLiteral("fathom"));  // resources/fathom.desktop
  }

  QCommandLineParser args;
  args.setApplicationDescription(QStringLiteral("Fathom workbench: runs, live curves, sweeps"));
  args.addHelpOption();
  args.addVersionOption();
  QCommandLineOption db(
      {"d", "db"},
      QStringLiteral("run store: a SQLite file or a postgresql://user@host:port/db URL "
                     "(default $FATHOM_DB, the last one, ./fathom.db); keep a password "
                     "out of argv: $FATHOM_DB or ~/.pgpass"),
      QStringLiteral("PATH|URL"));
  QCommandLineOption artifacts(
      QStringLiteral("artifacts"),
      QStringLiteral("directory of run checkpoints and logs (default "
                     "$FATHOM_ARTIFACTS, else beside a SQLite store; a server "
                     "store needs one)"),
      QStringLiteral("DIR"));
  QCommandLineOption sweep(QStringLiteral("sweep"),
                           QStringLiteral("open a sweep YAML in the editor"),
                           QStringLiteral("FILE"));
  QCommandLineOption shots(
      QStringLiteral("screenshot"),
      QStringLiteral(
          "save a PNG of each view, the run page and the shortcut list into DIR and exit"),
      QStringLiteral("DIR"));
  QCommandLineOption shot_size(QStringLiteral("screenshot-size"),
                               QStringLiteral("window size of --screenshot (default 1400x860)"),
                               QStringLiteral("WxH"), QStringLiteral("1400x860"));
  QCommandLineOption show(QStringLiteral("show-sweep"),
                          QStringLiteral("show only this sweep's runs (and chart them)"),
                          QStringLiteral("NAME"));
  args.addOptions({db, artifacts, sweep, shots, shot_size, show});
  args.process(app);  // prints --help and exits
  // For this process (db::store_paths: deleting a run's files) and the `fathom` children.
  if (args.isSet(artifacts))
    qputenv(fathom::db::kArtifactsEnv, QDir(args.value(artifacts)).absolutePath().toLocal8Bit());

  QString location = args.value(db);
  if (location.isEmpty()) location = qEnvironmentVariable("FATHOM_DB");
  if (location.isEmpty()) location = QSettings().value("lastDatabase").toString();
  if (location.isEmpty() && QFileInfo::exists(QStringLiteral("fathom.db")))
    location = QStringLiteral("fathom.db");

  fathom::gui::MainWindow window;
  const bool screenshot = args.isSet(shots);
  if (args.isSet(sweep)) window.sweepEditor()->openFile(args.value(sweep), screenshot);
  if (!location.isEmpty() && !window.openDatabase(location, screenshot) && screenshot) {
    std::fprintf(stderr, "%s\n", qPrintable(window.lastError()));
    return 1;
  }
  if (args.isSet(show) && !window.showSweep(args.value(show)))
    std::fprintf(stderr, "no sweep named %s in the store\n", qPrintable(args.value(show)));
  if (screenshot) return save_screenshots(window, args.value(shots), args.value(shot_size));
  window.show();
  return QApplication::exec();
}
