// The app's file dialog (gui/file_dialog.h) lists a folder with every column readable: the
// size, type and date columns as wide as their contents and headers, and the whole table
// inside the dialog (nothing cut at its right edge), a long store name included.
#include <QFile>
#include <QFileDialog>
#include <QFileSystemModel>
#include <QHeaderView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "gui/file_dialog.h"
#include "tests/gui/gui_test_registry.h"

namespace test_file_dialog {

class FileDialogTest : public QObject {
  Q_OBJECT
 private slots:
  void columnsAreNotCut() {
    QTemporaryDir dir;
    for (const char* name : {"lm-depth-2025-restored-for-the-screenshots.db", "b.yaml"}) {
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray(123456, 'x'));  // "121 KiB": a size wider than "0 bytes"
    }
    std::unique_ptr<QFileDialog> dialog(fathom::gui::make_file_dialog(
        nullptr, QStringLiteral("Open"), dir.path(), QStringLiteral("All files (*)")));
    dialog->show();
    QVERIFY(QTest::qWaitForWindowExposed(dialog.get()));
    auto* model = dialog->findChild<QFileSystemModel*>();
    QVERIFY(model);
    const QModelIndex root = model->index(dir.path());
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(root), 2, 5000);
    QTest::qWait(200);  // the sizes and dates fetched, the header fitted again
    auto* list = dialog->findChild<QTreeView*>(QStringLiteral("treeView"));
    QVERIFY(list);
    QVERIFY(list->isVisible());  // the detail view, with its columns
    QHeaderView* header = list->header();
    QCOMPARE(header->count(), 4);  // name, size, type, date modified
    for (int c = 0; c < header->count(); ++c) {
      const int needed = std::max(static_cast<QAbstractItemView*>(list)->sizeHintForColumn(c),
                                  header->sectionSizeHint(c));
      QVERIFY2(header->sectionSize(c) >= needed,
               qPrintable(QStringLiteral("column %1: %2 px for %3 px of text")
                              .arg(c)
                              .arg(header->sectionSize(c))
                              .arg(needed)));
    }
    QVERIFY2(header->length() <= list->viewport()->width(),
             qPrintable(QStringLiteral("columns %1 px in a %2 px list")
                            .arg(header->length())
                            .arg(list->viewport()->width())));
  }
};

FATHOM_GUI_TEST(FileDialogTest);

}  // namespace test_file_dialog

#include "test_file_dialog.moc"
