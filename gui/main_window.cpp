#include "gui/main_window.h"

#include <algorithm>

#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QTimer>

#include "db/records.h"
#include "db/run_status.h"
#include "db/store_url.h"
#include "gui/analysis_view.h"
#include "gui/app_icon.h"
#include "gui/comparison_view.h"
#include "gui/dashboard_view.h"
#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "gui/file_dialog.h"
#include "gui/help_menu.h"
#include "gui/probes_view.h"
#include "gui/run_brush.h"
#include "gui/run_page.h"
#include "gui/run_pages.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "gui/sweep_editor.h"
#include "gui/views.h"
#include "gui/workbench_view.h"

namespace fathom::gui {
namespace {

constexpr int kPollMs = 1000;  // a new point shows within ~1 s of its write
constexpr int kRecentMax = 8;

// Settings are a plain file: a location is remembered only when it holds no password.
bool holds_password(const QString& location) {
  const std::string text = location.toStdString();
  return db::redact_url(text) != text;
}

// A SQLite location as an absolute file path (so the recent list and child processes started
// elsewhere find it); a server URL as given. One that does not parse is returned as is, for
// the store to explain.
QString absolute_location(const QString& location) {
  try {
    const db::StoreUrl url = db::parse_store_url(location.toStdString());
    if (url.is_file()) return QFileInfo(QString::fromStdString(url.connect)).absoluteFilePath();
  } catch (const std::exception&) {
  }
  return location;
}

// The runs the screenshots show in the views after the runs table: all of a small store; of
// a large one the live runs and the newest others, 12 in all (a chart of 230 runs shows no
// run).
std::vector<int64_t> screenshot_runs(const std::vector<db::RunRecord>& runs) {
  constexpr size_t kAll = 24, kMost = 12;
  std::vector<int64_t> ids;
  for (const auto& r : runs)
    if (runs.size() <= kAll || r.status == db::status::kRunning) ids.push_back(r.id);
  for (auto it = runs.rbegin(); it != runs.rend() && ids.size() < kMost; ++it)
    if (it->status != db::status::kRunning && it->updates > 0) ids.push_back(it->id);
  return ids;
}

}  // namespace

MainWindow::MainWindow() {
  setWindowTitle(QStringLiteral("Fathom"));
  tabs_ = new QTabWidget;
  brush_ = new RunBrush(this);
  for (const ViewEntry& entry : workbench_views()) {
    QWidget* widget = entry.make();
    views_.push_back({widget, &as_view(widget), entry.screenshot});
    views_.back().view->setBrush(brush_);
    tabs_->addTab(widget, entry.title);
    connectReports(widget);
  }
  runs_ = view<RunsView>();
  editor_ = view<SweepEditor>();
  setCentralWidget(tabs_);
  buildMenus();

  connect(runs_, &RunsView::selectionChanged, this, &MainWindow::showRunsInViews);
  // The Compare tab's budget drawn on the dashboard's charts of its axis.
  if (ComparisonView* c = comparison())
    if (DashboardView* d = dashboard())
      connect(c, &ComparisonView::budgetRead, d, &DashboardView::setBudget);
  connect(editor_, &SweepEditor::sweepStarted, this, [this](const QString& name) {
    statusBar()->showMessage(QStringLiteral("sweep %1 started").arg(name), 10000);
    runs_->followSweep(name);  // the old selection would keep the dashboard on other runs
    if (DashboardView* d = dashboard()) d->followSweep(name);  // and the runs it followed
    showRunsInViews();
    tabs_->setCurrentWidget(runs_);
  });

  poll_timer_ = new QTimer(this);
  poll_timer_->setInterval(kPollMs);
  connect(poll_timer_, &QTimer::timeout, this, &MainWindow::pollInBackground);

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  tabs_->setCurrentIndex(settings.value("window/tab", 0).toInt());
  for (const auto& v : views_) v.view->restoreSettings(settings);
  if (!settings.contains("window/geometry")) resize(1280, 820);
  rebuildRecentMenu();
}

MainWindow::~MainWindow() = default;

DashboardView* MainWindow::dashboard() const { return view<DashboardView>(); }
ComparisonView* MainWindow::comparison() const { return view<ComparisonView>(); }
AnalysisView* MainWindow::analyses() const { return view<AnalysisView>(); }

bool MainWindow::showSweep(const QString& sweep) {
  if (ComparisonView* c = comparison()) c->showSweep(sweep);
  return runs_->showSweep(sweep);
}

void MainWindow::connectReports(QWidget* widget) {
  // String-based: views are not obliged to have either signal, and share no base QObject.
  const QMetaObject* meta = widget->metaObject();
  if (meta->indexOfSignal("error(QString)") >= 0)
    connect(widget, SIGNAL(error(QString)), this, SLOT(showError(QString)));
  if (meta->indexOfSignal("message(QString)") >= 0)
    connect(widget, SIGNAL(message(QString)), this, SLOT(showMessage(QString)));
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  file->addAction(QStringLiteral("&Open run store..."), QKeySequence::Open, this,
                  &MainWindow::chooseDatabase);
  file->addAction(QStringLiteral("Open &URL..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U),
                  this, &MainWindow::chooseDatabaseUrl);
  recent_menu_ = file->addMenu(QStringLiteral("Open &recent"));
  file->addSeparator();
  file->addAction(QStringLiteral("Open s&weep..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
                  editor_, &SweepEditor::open);
  file->addAction(QStringLiteral("&Save sweep"), QKeySequence::Save, editor_, &SweepEditor::save);
  file->addAction(QStringLiteral("Save sweep &as..."), QKeySequence::SaveAs, editor_,
                  &SweepEditor::saveAs);
  file->addSeparator();
  file->addAction(QStringLiteral("&Export..."), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                  &MainWindow::exportCurrent);
  file->addSeparator();
  file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
  // Ctrl+1 .. Ctrl+9, then Ctrl+0 for the tenth tab, as the digits lie on the keyboard.
  for (int i = 0; i < tabs_->count(); ++i) {
    const QKeySequence keys = i < 9    ? QKeySequence(Qt::CTRL | (Qt::Key_1 + i))
                              : i == 9 ? QKeySequence(Qt::CTRL | Qt::Key_0)
                                       : QKeySequence();
    view->addAction(tabs_->tabText(i).remove('&'), keys, this,
                    [this, i] { tabs_->setCurrentIndex(i); });
  }
  view->addSeparator();
  view->addAction(QStringLiteral("&Refresh"), QKeySequence::Refresh, this, [this] {
    reconnect(QString());  // a fresh connection: whatever happened to the old one
    pollNow();
    for (const auto& v : views_) v.view->reload();  // e.g. results computed from a terminal
  });
  view->addAction(runs_->focusFilterAction());

  QMenu* run = menuBar()->addMenu(QStringLiteral("R&un"));
  for (QAction* a : runs_->runActions()) run->addAction(a);

  QMenu* sweep = menuBar()->addMenu(QStringLiteral("&Sweep"));
  sweep->addAction(QStringLiteral("&Dry run"), QKeySequence(Qt::CTRL | Qt::Key_D), editor_,
                   &SweepEditor::dryRun);
  sweep->addAction(QStringLiteral("&Start"), QKeySequence(Qt::CTRL | Qt::Key_Return), editor_,
                   &SweepEditor::start);
  add_help_menu(*this);  // last: its shortcut list gathers every action above
}

bool MainWindow::openDatabase(const QString& location, bool quiet) {
  const QString where = absolute_location(location.trimmed());
  // The same store again: every connection closes before the new one opens (reconnect()).
  if (where == db_location_) closeStore();
  QString error;
  bool outdated = false;
  auto session = StoreSession::open(where, &error, &outdated);
  bool answered = false;  // the upgrade's question (and its failure) said why: no warning after
  if (!session && outdated && !quiet) {
    answered = !offerUpgrade(where, error);
    if (!answered) session = StoreSession::open(where, &error);
  }
  if (!session) {
    last_error_ = error;
    if (!quiet && !answered) QMessageBox::warning(this, QStringLiteral("Open run store"), error);
    statusBar()->showMessage(error.section('\n', 0, 0) + " " + error.section('\n', 1), 0);
    return false;
  }
  // The views let go of the old store before it closes.
  for (const auto& v : views_) v.view->setStore(nullptr, {});
  if (where != db_location_) brush_->clear();  // another store's runs
  session_ = std::move(session);
  if (where != db_location_) alerts_ = RunAlerts();  // another store: its runs are new to us
  db_location_ = where;
  const QString shown = QString::fromStdString(session_->store.path());  // no password
  last_error_.clear();
  for (const auto& v : views_) v.view->setStore(session_.get(), db_location_);
  setWindowTitle(QStringLiteral("Fathom - %1").arg(shown));
  rememberRecent(db_location_);
  const int n = runs_->model()->rowCount();
  statusBar()->showMessage(QStringLiteral("%1: %2 run%3").arg(shown).arg(n).arg(n == 1 ? "" : "s"),
                           5000);
  showRunsInViews();
  poll_timer_->start();
  return true;
}

bool MainWindow::offerUpgrade(const QString& where, QString& error) {
  const auto answer = QMessageBox::question(
      this, QStringLiteral("Upgrade run store"),
      error + QStringLiteral("\n\nUpgrade it now? Its runs and metrics are kept."),
      QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
  if (answer != QMessageBox::Yes) return false;
  if (StoreSession::create_or_upgrade(where, &error)) return true;
  QMessageBox::warning(this, QStringLiteral("Upgrade run store"), error);
  return false;
}

void MainWindow::chooseDatabase() {
  const QString path = choose_file_to_open_or_create(
      this, QStringLiteral("Open or create a run store"), QDir::currentPath(),
      QStringLiteral("Run stores (*.db);;All files (*)"));
  if (path.isEmpty()) return;
  if (!QFileInfo::exists(path)) {
    const auto answer = QMessageBox::question(
        this, QStringLiteral("Create run store"),
        QStringLiteral("%1 does not exist. Create an empty run store there?").arg(path));
    if (answer != QMessageBox::Yes) return;
    QString error;
    if (!StoreSession::create_or_upgrade(path, &error)) {
      QMessageBox::warning(this, QStringLiteral("Create run store"), error);
      return;
    }
  }
  openDatabase(path);
}

void MainWindow::closeStore() {
  // Views let go first: the dashboard's polling thread closes its connection before this
  // returns (MetricPoller::setDatabase("")).
  for (const auto& v : views_) v.view->setStore(nullptr, {});
  session_.reset();
}

bool MainWindow::reconnect(const QString& why) {
  if (db_location_.isEmpty()) return false;
  // A SQLite process shares one -shm mapping among its connections to a file: a new
  // connection beside a stale one would read the deleted index too and report the store
  // malformed. So all of them close first, then one opens.
  closeStore();
  const bool ok = openDatabase(db_location_, /*quiet=*/true);
  reconnect_pending_ = !ok;  // each poll tries again until it opens
  if (ok && !why.isEmpty()) statusBar()->showMessage(why, 10000);
  return ok;
}

void MainWindow::chooseDatabaseUrl() {
  QInputDialog dialog(this);
  dialog.setWindowTitle(QStringLiteral("Open run store URL"));
  dialog.setLabelText(
      QStringLiteral("Run store URL (a password is better kept in ~/.pgpass;\n"
                     "a URL that holds one is not added to the recent list):"));
  dialog.setInputMode(QInputDialog::TextInput);
  dialog.resize(520, dialog.sizeHint().height());
  if (auto* edit = dialog.findChild<QLineEdit*>())
    edit->setPlaceholderText(QStringLiteral("postgresql://user@host:5432/fathom"));
  if (dialog.exec() != QDialog::Accepted) return;
  const QString url = dialog.textValue().trimmed();
  if (!url.isEmpty()) openDatabase(url);
}

void MainWindow::rememberRecent(const QString& location) {
  if (holds_password(location)) return;  // never written to the settings file
  QSettings settings;
  QStringList recent = settings.value("recentDatabases").toStringList();
  recent.removeAll(location);
  recent.prepend(location);
  while (recent.size() > kRecentMax) recent.removeLast();
  settings.setValue("recentDatabases", recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  QStringList recent = QSettings().value("recentDatabases").toStringList();
  recent.erase(std::remove_if(recent.begin(), recent.end(), holds_password),
               recent.end());  // older versions
  for (const QString& location : recent)
    recent_menu_->addAction(QString(location).replace('&', QStringLiteral("&&")), this,
                            [this, location] { openDatabase(location); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::exportCurrent() {
  export_with_dialog(export_target(tabs_->currentWidget()), this);
}

void MainWindow::showRunsInViews() {
  const std::vector<db::RunRecord>& all = runs_->model()->runs();
  const std::vector<db::RunRecord> selected = runs_->selectedRuns();
  for (const auto& v : views_) v.view->showRuns(all, selected);
}

void MainWindow::announce(const std::vector<db::RunRecord>& runs) {
  for (const RunAlert& a : alerts_.changes(runs, db::unix_now())) {
    if (!tray_ && QSystemTrayIcon::isSystemTrayAvailable()) {
      tray_ = new QSystemTrayIcon(app_icon(), this);
      tray_->setToolTip(QStringLiteral("Fathom"));
      tray_->show();
    }
    if (tray_)
      tray_->showMessage(a.title, a.message,
                         a.bad ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information);
    statusBar()->showMessage(a.title + QStringLiteral(": ") + a.message, 10000);
    announced_.push_back(a);
  }
}

void MainWindow::pollNow() {
  QElapsedTimer timer;
  timer.start();
  if (!beginPoll()) return;
  runs_->refresh();
  finishPoll(timer);
}

void MainWindow::pollInBackground() {
  if (!beginPoll()) return;
  runs_->refreshInBackground([this] {
    QElapsedTimer timer;  // what the UI thread does with what the worker read
    timer.start();
    if (session_) finishPoll(timer);
  });
}

bool MainWindow::beginPoll() {
  if (!session_ && reconnect_pending_) reconnect(QStringLiteral("reconnected to the run store"));
  if (!session_) return false;
  if (reopen_before_poll_) {  // showError: a read met a malformed page
    reopen_before_poll_ = false;
    reopened_after_corruption_ = true;
    if (!reconnect(QString())) return false;
  }
  poll_failed_ = false;
  if (session_->store.connection_stale() && ++stale_reconnects_ &&
      !reconnect(QStringLiteral("reconnected to the run store: its files were replaced under "
                                "this window (another process in this window read the store "
                                "file, or it was restored)")))
    return false;  // openDatabase showed why
  QString why;
  if (!session_->readable(&why)) {
    statusBar()->showMessage(why, 2000);
    return false;
  }
  return true;
}

void MainWindow::finishPoll(const QElapsedTimer& timer) {
  announce(runs_->model()->runs());
  showRunsInViews();  // new runs and statuses; the selection changes only by a click
  for (const auto& v : views_) v.view->poll();
  if (!poll_failed_) reopened_after_corruption_ = false;  // the reopened store read fine
  // The UI thread's part of a poll is cheap; say so if a huge store makes it not.
  if (timer.elapsed() > 200)
    statusBar()->showMessage(QStringLiteral("polling the store took %1 ms").arg(timer.elapsed()),
                             3000);
}

void MainWindow::showError(const QString& message) {
  // A healthy SQLite store can read as malformed once through a connection whose locks this
  // process lost (any other open and close of the file in this process -- a file dialog's
  // type sniffing -- drops them: POSIX locks are per process), when a writer then restarts its
  // log under it. A fresh connection reads it fine. So the first such error reopens the store
  // before the next poll, and only one that the fresh connection meets too is shown.
  const bool corrupt =
      message.contains(QStringLiteral("malformed")) || message.contains(QStringLiteral("corrupt"));
  poll_failed_ = true;
  if (corrupt && !reopened_after_corruption_) {
    reopen_before_poll_ = true;
    statusBar()->showMessage(QStringLiteral("re-reading the run store..."), 2000);
    return;
  }
  last_error_ = message;
  statusBar()->showMessage(message.simplified(), 15000);
}

void MainWindow::showMessage(const QString& message) { statusBar()->showMessage(message, 10000); }

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!editor_->keepOrDiscardEdits()) {  // the sweep being written is nowhere else
    event->ignore();
    return;
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("window/tab", tabs_->currentIndex());
  for (const auto& v : views_) v.view->saveSettings(settings);
  if (!db_location_.isEmpty()) {
    // A URL holding a password is not written down; the next start then asks again.
    if (holds_password(db_location_))
      settings.remove("lastDatabase");
    else
      settings.setValue("lastDatabase", db_location_);
  }
  event->accept();
}

void MainWindow::waitForReads(const WorkbenchView& view) {
  QElapsedTimer waited;
  waited.start();
  while (view.reading() && waited.elapsed() < 10000) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
  QApplication::processEvents();
}

QStringList MainWindow::saveScreenshots(const QString& dir) {
  QDir().mkpath(dir);
  QStringList saved;
  const auto shoot = [&](const QString& file) {
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(file);
    if (grab().save(path)) saved << path;
  };
  for (int i = 0; i < static_cast<int>(views_.size()); ++i) {
    tabs_->setCurrentIndex(i);
    QApplication::processEvents();
    // The runs table is grabbed unselected, so its status colours show; the views after it
    // show every run.
    if (i > 0 && runs_->selectedRuns().empty())
      runs_->selectRuns(screenshot_runs(runs_->model()->runs()));
    // Stored results to draw, where the runs shown have none of their own.
    if (views_[i].widget == analyses() && analyses()->results()->rowCount() == 0)
      analyses()->allRuns()->setChecked(true);
    // Charts laid out at their final size, with the data their polls read in other threads
    // (a second poll: the first may only have learnt which curves there are).
    for (int poll = 0; poll < 2; ++poll) {
      pollNow();
      waitForReads(*views_[i].view);
    }
    shoot(views_[i].screenshot);
    views_[i].view->extraScreenshots(shoot);
  }
  // The run page, a window of its own, at the window's size.
  if (RunPage* page = runs_->openScreenshotPage()) {
    page->resize(size());
    QApplication::processEvents();
    pollNow();  // the charts laid out at that size, with the run's latest points
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(QStringLiteral("run-page.png"));
    if (page->grab().save(path)) saved << path;
    if (ProbesView* probes = page->probes()) {  // the run's probes, where it has any
      page->tabs()->setCurrentWidget(probes);
      waitForReads(*probes);
      const QString at = QDir(dir).filePath(QStringLiteral("run-page-probes.png"));
      if (page->grab().save(at)) saved << at;
    }
    page->close();
  }
  // Help > Keyboard shortcuts, as listed from the window's actions.
  std::unique_ptr<QDialog> help(make_shortcuts_dialog(*this));
  help->show();
  QApplication::processEvents();
  const QString path = QDir(dir).filePath(QStringLiteral("shortcuts.png"));
  if (help->grab().save(path)) saved << path;
  return saved;
}

}  // namespace fathom::gui

#include "moc_main_window.cpp"  // moc output for main_window.h: compiled in this unit
