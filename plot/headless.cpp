#include "plot/headless.h"

#include <sys/stat.h>
#include <unistd.h>
#include <QApplication>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace fathom::plot {
namespace {

// Without $XDG_RUNTIME_DIR (a container, a cron job) Qt warns on every start; give it a private
// directory of the kind it wants: ours, mode 0700.
void ensure_runtime_dir() {
  if (const char* dir = std::getenv("XDG_RUNTIME_DIR"); dir && *dir) return;
  const std::string dir = "/tmp/fathom-runtime-" + std::to_string(getuid());
  mkdir(dir.c_str(), 0700);
  struct stat info {};
  if (stat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == getuid() &&
      (info.st_mode & 0777) == 0700)
    setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
}

}  // namespace

void ensure_application(bool force_offscreen) {
  if (QCoreApplication* app = QCoreApplication::instance()) {
    if (!qobject_cast<QApplication*>(app))
      throw std::runtime_error("figures need a QApplication, but a QCoreApplication exists");
    return;
  }
  auto unset = [](const char* name) {
    const char* value = std::getenv(name);
    return !value || !*value;
  };
  if (unset("QT_QPA_PLATFORM") &&
      (force_offscreen || (unset("DISPLAY") && unset("WAYLAND_DISPLAY"))))
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
  ensure_runtime_dir();
  // QApplication keeps references to argc and argv for its whole life.
  static int argc = 1;
  static char name[] = "fathom";
  static char* argv[] = {name, nullptr};
  static QApplication* app = new QApplication(argc, argv);  // lives until exit, never deleted
  (void)app;
}

}  // namespace fathom::plot
