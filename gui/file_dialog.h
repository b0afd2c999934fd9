#pragma once
// File dialogs that never read the files they list. Qt's own dialog asks QMimeDatabase for each
// file's icon and type, and for a name that does not settle the type (a run store, *.db) it
// opens the file and reads its first bytes. Closing that descriptor drops every SQLite lock this
// process holds on the store (POSIX locks are per process: db/sqlite_file_identity.h), so the
// next training worker to close its connection deletes the store's -wal and -shm under the
// window's connections. These dialogs are Qt's widget dialog (never the platform's native one,
// which may sniff in this process too) with icons and types from the name alone.
#include <QString>

class QFileDialog;
class QWidget;

namespace fathom::gui {

// An existing file to open; "" when cancelled.
QString choose_file_to_open(QWidget* parent, const QString& title, const QString& dir,
                            const QString& filters);
// A file to open or to create (a new name may be typed); "" when cancelled.
QString choose_file_to_open_or_create(QWidget* parent, const QString& title, const QString& dir,
                                      const QString& filters);
// A file to write; `selected_filter` (optional) gets the filter chosen; "" when cancelled.
QString choose_file_to_save(QWidget* parent, const QString& title, const QString& dir,
                            const QString& filters, QString* selected_filter = nullptr);

// The dialog these use, not yet shown (tests show it and look at its directory listing).
QFileDialog* make_file_dialog(QWidget* parent, const QString& title, const QString& dir,
                              const QString& filters);

}  // namespace fathom::gui
