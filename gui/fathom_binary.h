#pragma once
// Where the `fathom` command line is: the GUI starts sweeps and resumes runs through it, so
// they run in the same scheduler and worker processes as from a terminal.
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace fathom::gui {

// $FATHOM_BIN, else `fathom` beside fathom-gui (an install) or one folder up (the build tree:
// build/fathom, build/gui/fathom-gui), else `fathom` in PATH; "" when none is found.
QString find_fathom_binary();
// The same search without $FATHOM_BIN, from fathom-gui's folder `dir`.
QString find_fathom_binary_from(const QString& dir);

// The environment for a `fathom` child process working on the store at `db_location`: this
// process's environment with FATHOM_DB=db_location and, when this process has one,
// FATHOM_ARTIFACTS. The store goes there rather than as `--db` in argv, which `ps` shows to
// every user and a URL may hold a password. An empty location leaves FATHOM_DB as it is.
QProcessEnvironment fathom_environment(const QString& db_location);

// `process` made ready to run `fathom args` on the store at db_location (the program found as
// above, the environment above); false and *problem (what to set) when no `fathom` is found.
bool set_up_fathom_process(QProcess& process, const QStringList& args, const QString& db_location,
                           QString* problem);

}  // namespace fathom::gui
