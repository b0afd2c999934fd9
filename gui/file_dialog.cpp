#include "gui/file_dialog.h"

#include <algorithm>
#include <memory>

#include <QAbstractFileIconProvider>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QScreen>
#include <QTreeView>

namespace fathom::gui {
namespace {

// Icons and type names from the file's name and kind (a stat), never from its contents.
class NameOnlyIconProvider : public QAbstractFileIconProvider {
 public:
  QIcon icon(const QFileInfo& info) const override {
    return QAbstractFileIconProvider::icon(info.isDir() ? Folder : File);
  }
  QString type(const QFileInfo& info) const override {
    if (info.isDir()) return QStringLiteral("Folder");
    const QString suffix = info.suffix();
    return suffix.isEmpty() ? QStringLiteral("File") : suffix.toUpper() + QStringLiteral(" file");
  }
};

QAbstractFileIconProvider* name_only_icons() {
  static NameOnlyIconProvider provider;  // outlives every dialog, which does not own it
  return &provider;
}

// The listing's columns uncut: size, type and date as wide as their contents and headers, the
// name taking the rest of a dialog wide enough for all four.
void fit_columns(QFileDialog* dialog) {
  const QRect screen =
      dialog->screen() ? dialog->screen()->availableGeometry() : QRect(0, 0, 1280, 800);
  dialog->resize(std::min(900, screen.width() * 9 / 10), std::min(560, screen.height() * 8 / 10));
  auto* list = dialog->findChild<QTreeView*>(QStringLiteral("treeView"));
  if (!list) return;
  QHeaderView* header = list->header();
  header->setStretchLastSection(false);
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
  header->setSectionResizeMode(0, QHeaderView::Stretch);
  header->setMinimumSectionSize(60);
}

QString run(QFileDialog* dialog, QString* selected_filter) {
  std::unique_ptr<QFileDialog> owned(dialog);
  if (dialog->exec() != QDialog::Accepted || dialog->selectedFiles().isEmpty()) return {};
  if (selected_filter) *selected_filter = dialog->selectedNameFilter();
  return dialog->selectedFiles().front();
}

}  // namespace

QFileDialog* make_file_dialog(QWidget* parent, const QString& title, const QString& dir,
                              const QString& filters) {
  auto* dialog = new QFileDialog(parent, title, dir, filters);
  dialog->setOption(QFileDialog::DontUseNativeDialog);
  dialog->setIconProvider(name_only_icons());
  dialog->setViewMode(QFileDialog::Detail);
  fit_columns(dialog);
  return dialog;
}

QString choose_file_to_open(QWidget* parent, const QString& title, const QString& dir,
                            const QString& filters) {
  QFileDialog* dialog = make_file_dialog(parent, title, dir, filters);
  dialog->setAcceptMode(QFileDialog::AcceptOpen);
  dialog->setFileMode(QFileDialog::ExistingFile);
  return run(dialog, nullptr);
}

QString choose_file_to_open_or_create(QWidget* parent, const QString& title, const QString& dir,
                                      const QString& filters) {
  QFileDialog* dialog = make_file_dialog(parent, title, dir, filters);
  dialog->setAcceptMode(QFileDialog::AcceptOpen);
  dialog->setFileMode(QFileDialog::AnyFile);
  return run(dialog, nullptr);
}

QString choose_file_to_save(QWidget* parent, const QString& title, const QString& dir,
                            const QString& filters, QString* selected_filter) {
  QFileDialog* dialog = make_file_dialog(parent, title, dir, filters);
  dialog->setAcceptMode(QFileDialog::AcceptSave);
  dialog->setFileMode(QFileDialog::AnyFile);
  if (selected_filter && !selected_filter->isEmpty()) dialog->selectNameFilter(*selected_filter);
  return run(dialog, selected_filter);
}

}  // namespace fathom::gui
