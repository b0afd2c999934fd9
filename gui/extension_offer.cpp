#include "gui/extension_offer.h"

#include <QDir>
#include <QMessageBox>

#include "base/util/file_write.h"
#include "gui/file_dialog.h"
#include "gui/store_session.h"

namespace fathom::gui {

namespace {

QString offer(QWidget* parent, const QString& title, const ExtensionOffer& offer) {
  if (offer.text.empty()) {
    QMessageBox::information(parent, title,
                             QStringLiteral("Nothing to extend.\n") + offer.lines.join('\n'));
    return {};
  }
  QMessageBox ask(QMessageBox::Question, title,
                  QStringLiteral("Write %1: %2 runs, %3\n%4")
                      .arg(QString::fromStdString(offer.out))
                      .arg(offer.runs)
                      .arg(offer.what, offer.lines.join('\n')),
                  QMessageBox::Yes | QMessageBox::Cancel, parent);
  ask.setDetailedText(QString::fromStdString(offer.text));
  if (ask.exec() != QMessageBox::Yes) return {};
  write_file_or_throw(offer.out, offer.text, "sweep file");
  const QString command =
      QStringLiteral("fathom sweep %1 --resume%2")
          .arg(QString::fromStdString(offer.out),
               offer.set.empty() ? QString() : " --set " + QString::fromStdString(offer.set));
  QMessageBox::information(parent, title,
                           QStringLiteral("Wrote %1. Train its runs with\n%2\nor open it in the "
                                          "Sweep editor and Start it there (it resumes the sweep).")
                               .arg(QString::fromStdString(offer.out), command));
  return QString::fromStdString(offer.out);
}

}  // namespace

QString choose_sweep_file(QWidget* parent, const QString& sweep) {
  return choose_file_to_open(
      parent, QStringLiteral("The sweep file %1 was started from").arg(sweep), QDir::currentPath(),
      QStringLiteral("Sweep files (*.yaml *.yml);;All files (*)"));
}

QString offer_extension(QWidget* parent, const QString& title,
                        const std::function<ExtensionOffer()>& plan) {
  try {
    return offer(parent, title, plan());
  } catch (const std::exception& e) {
    QMessageBox::warning(parent, title, describe_store_error(e));
    return {};
  }
}

}  // namespace fathom::gui
