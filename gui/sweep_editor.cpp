#include "gui/sweep_editor.h"
#include "gui/split_shares.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTemporaryFile>
#include <QTextBlock>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "db/store_url.h"
#include "gui/fathom_binary.h"
#include "gui/file_dialog.h"
#include "gui/sweep_form.h"
#include "gui/sweep_form_widget.h"
#include "gui/sweep_marks.h"

namespace fathom::gui {
namespace {

// A new sweep starts from the quickstart config of the source tree this was built from.
const char* kTemplate =
    "name: my-sweep\n"
    "base: " FATHOM_SOURCE_DIR
    "/configs/quickstart.yaml\n"
    "grid:\n"
    "  model.norm: [post, pre]\n"
    "seeds: [1, 2]\n"
    "set:\n"
    "  train.max_updates: 300\n";

}  // namespace

SweepEditor::SweepEditor(QWidget* parent) : QWidget(parent) {
  form_ = new SweepFormWidget;
  auto* scroll = new QScrollArea;
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);

  yaml_ = new QPlainTextEdit;
  yaml_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  yaml_->setLineWrapMode(QPlainTextEdit::NoWrap);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(scroll);
  split->addWidget(yaml_);
  keep_split_shares(split, {1, 1});

  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  jobs_ = new QSpinBox;
  jobs_->setRange(1, 64);
  jobs_->setValue(std::max(1, QThread::idealThreadCount() / 2));
  jobs_->setToolTip(QStringLiteral("parallel worker processes (--jobs)"));

  auto button = [this](const QString& text, const QString& tip, void (SweepEditor::*slot)()) {
    auto* b = new QPushButton(text);
    b->setToolTip(tip);
    connect(b, &QPushButton::clicked, this, slot);
    return b;
  };
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(
      button(QStringLiteral("Open..."), QStringLiteral("Open a sweep YAML"), &SweepEditor::open));
  buttons->addWidget(
      button(QStringLiteral("Save"), QStringLiteral("Save the sweep YAML"), &SweepEditor::save));
  buttons->addWidget(button(QStringLiteral("Save as..."), {}, &SweepEditor::saveAs));
  buttons->addStretch();
  buttons->addWidget(new QLabel(QStringLiteral("Jobs")));
  buttons->addWidget(jobs_);
  buttons->addWidget(
      button(QStringLiteral("Dry run"),
             QStringLiteral(
                 "fathom sweep FILE --dry-run: check every run, method names included (Ctrl+D)"),
             &SweepEditor::dryRun));
  buttons->addWidget(button(QStringLiteral("Start"),
                            QStringLiteral("fathom sweep FILE --db DB --jobs N (Ctrl+Return)"),
                            &SweepEditor::start));

  output_ = new QPlainTextEdit;
  output_->setReadOnly(true);
  output_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  output_->setMaximumHeight(160);
  output_->setPlaceholderText(QStringLiteral("dry-run output"));
  output_note_ = new QLabel;
  output_note_->setWordWrap(true);
  output_note_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split, 1);
  layout->addWidget(status_);
  layout->addLayout(buttons);
  layout->addWidget(output_note_);
  layout->addWidget(output_);

  check_timer_ = new QTimer(this);
  check_timer_->setSingleShot(true);
  check_timer_->setInterval(300);  // a pause in typing, not every keystroke
  connect(check_timer_, &QTimer::timeout, this, &SweepEditor::checkNow);
  connect(form_, &SweepFormWidget::edited, this, &SweepEditor::formEdited);
  connect(yaml_, &QPlainTextEdit::textChanged, this, &SweepEditor::yamlEdited);

  setYaml(QString::fromLatin1(kTemplate));
  dirty_ = false;
}

SweepEditor::~SweepEditor() = default;

QString SweepEditor::yaml() const { return yaml_->toPlainText(); }

void SweepEditor::setYaml(const QString& text) { yaml_->setPlainText(text); }

QString SweepEditor::origin() const {
  return file_.isEmpty() ? QStringLiteral("(unsaved sweep)") : QFileInfo(file_).fileName();
}

QString SweepEditor::baseDir() const {
  return file_.isEmpty() ? QDir::currentPath() : QFileInfo(file_).absolutePath();
}

void SweepEditor::formEdited() {
  const std::string text = sweep_form_to_yaml(form_->form());
  syncing_ = true;
  yaml_->setPlainText(QString::fromStdString(text));
  syncing_ = false;
  SweepForm parsed;  // learn the lines each field now has
  if (sweep_form_from_yaml(text, &parsed, nullptr, nullptr)) form_->setLines(parsed);
  dirty_ = true;
  check_timer_->start();
  showOutputState();
}

void SweepEditor::yamlEdited() {
  if (syncing_) return;
  dirty_ = true;
  SweepForm parsed;
  if (sweep_form_from_yaml(yaml().toStdString(), &parsed, nullptr, nullptr))
    form_->setForm(parsed);  // on a syntax error the form keeps its last good state
  check_timer_->start();
  showOutputState();
}

bool SweepEditor::dryRunOutOfDate() const { return dry_run_made_ && yaml() != dry_run_text_; }

void SweepEditor::showOutputState() {
  const bool old = dryRunOutOfDate();
  output_note_->setVisible(old);
  output_note_->setText(old ? QStringLiteral("Out of date: the sweep was edited after this dry run "
                                             "(Dry run, Ctrl+D, checks it again).")
                            : QString());
  output_->setStyleSheet(old ? QStringLiteral("color: gray;") : QString());
}

namespace {

// A fork sweep's parent config, read from the window's store (read-only) as `fathom sweep`
// reads it (cli/fork_sweep.h); errors at the sweep's `fork:` line.
RunConfig fork_parent_config(const QString& location, const std::string& sweep_file,
                             const experiments::SweepFork& at) {
  if (location.isEmpty())
    throw InputError(sweep_file, at.line, "fork.run",
                     "a fork sweep reads its parent from the run store: open the store that "
                     "holds run '" +
                         at.run + "'");
  const auto store = db::Store::open(location.toStdString(), db::OpenMode::ReadOnly);
  const auto parent = store.find_run(at.run);
  if (!parent)
    throw InputError(sweep_file, at.line, "fork.run",
                     "no run '" + at.run + "' in " + store.path() + " to fork");
  return load_config_string(parent->config_yaml, "run " + std::to_string(parent->id) + " config",
                            "");
}

}  // namespace

void SweepEditor::checkNow() {
  check_timer_->stop();
  const std::string file = origin().toStdString();
  check_ = check_sweep_yaml(yaml().toStdString(), file, baseDir().toStdString(),
                            [this, &file](const experiments::SweepFork& at) {
                              return fork_parent_config(db_location_, file, at);
                            });
  showCheck();
}

void SweepEditor::showCheck() {
  form_->clearErrors();
  if (check_.ok) {
    status_->setStyleSheet(QStringLiteral("color: #2ca02c;"));
    status_->setText(QStringLiteral("%1 run%2").arg(check_.runs).arg(check_.runs == 1 ? "" : "s"));
    highlightYamlLine(0);
    return;
  }
  const QString message = QString::fromStdString(check_.message);
  status_->setStyleSheet(QStringLiteral("color: #d62728;"));
  status_->setText(message);
  const bool in_sweep = check_.file == origin().toStdString();
  form_->markError(check_.line, !in_sweep, message, sweep_error_is_in_key(check_));
  highlightYamlLine(in_sweep ? check_.line : 0);
}

void SweepEditor::highlightYamlLine(int line) {
  QList<QTextEdit::ExtraSelection> marks;
  const QTextBlock block = yaml_->document()->findBlockByNumber(line - 1);
  if (line > 0 && block.isValid()) {
    // The value that is wrong (or the unknown key), not the line it stands on.
    const TextSpan span = sweep_error_span(block.text(), check_);
    QTextEdit::ExtraSelection mark;
    mark.format.setBackground(QColor(0xff, 0xb0, 0xb0));
    mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    mark.format.setUnderlineColor(QColor(0xd6, 0x27, 0x28));
    mark.cursor = QTextCursor(block);
    mark.cursor.setPosition(block.position() + span.start);
    mark.cursor.setPosition(block.position() + span.start + std::max(span.length, 1),
                            QTextCursor::KeepAnchor);
    marks << mark;
  }
  yaml_->setExtraSelections(marks);
}

bool SweepEditor::openFile(const QString& path, bool quiet) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
    if (!quiet)
      QMessageBox::warning(this, QStringLiteral("Open sweep"),
                           QStringLiteral("Cannot read %1: %2").arg(path, file.errorString()));
    return false;
  }
  file_ = QFileInfo(path).absoluteFilePath();
  setYaml(QString::fromUtf8(file.readAll()));
  dirty_ = false;
  checkNow();
  return true;
}

bool SweepEditor::saveFile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text | QIODevice::Truncate)) {
    QMessageBox::warning(this, QStringLiteral("Save sweep"),
                         QStringLiteral("Cannot write %1: %2").arg(path, file.errorString()));
    return false;
  }
  file.write(yaml().toUtf8());
  file_ = QFileInfo(path).absoluteFilePath();
  dirty_ = false;
  checkNow();  // relative base paths now resolve against the file's folder
  return true;
}

bool SweepEditor::keepOrDiscardEdits() {
  if (!dirty_) return true;
  const QString what = file_.isEmpty() ? QStringLiteral("the new sweep") : file_;
  const auto answer = QMessageBox::question(
      this, QStringLiteral("Unsaved sweep"), QStringLiteral("Save your changes to %1?").arg(what),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Discard) return true;
  if (answer != QMessageBox::Save) return false;
  save();
  return !dirty_;
}

void SweepEditor::open() {
  if (!keepOrDiscardEdits()) return;
  const QString path = choose_file_to_open(this, QStringLiteral("Open sweep"), baseDir(),
                                           QStringLiteral("Sweep YAML (*.yaml *.yml)"));
  if (!path.isEmpty()) openFile(path);
}

void SweepEditor::save() {
  if (file_.isEmpty())
    saveAs();
  else
    saveFile(file_);
}

void SweepEditor::saveAs() {
  const QString path = choose_file_to_save(this, QStringLiteral("Save sweep"), baseDir(),
                                           QStringLiteral("Sweep YAML (*.yaml *.yml)"));
  if (!path.isEmpty()) saveFile(path);
}

bool SweepEditor::ensureSaved() {
  if (!file_.isEmpty() && !dirty_) return true;
  save();
  return !file_.isEmpty() && !dirty_;
}

QString SweepEditor::fathomOrComplain() {
  const QString binary = find_fathom_binary();
  if (binary.isEmpty())
    QMessageBox::warning(this, QStringLiteral("fathom not found"),
                         QStringLiteral("The fathom command line was not found beside fathom-gui "
                                        "or in PATH; set $FATHOM_BIN to its path."));
  return binary;
}

QString SweepEditor::dryRunSource() {
  dry_copy_.reset();
  if (!file_.isEmpty() && !dirty_) return file_;
  // Never saved, or edited since: a hidden temporary copy where relative paths resolve (the
  // file's folder), so the dry run checks the text as it stands and writes nothing of the
  // user's.
  dry_copy_ = std::make_unique<QTemporaryFile>(
      QDir(baseDir()).filePath(QStringLiteral(".fathom-dry-run-XXXXXX.yaml")));
  if (!dry_copy_->open() || dry_copy_->write(yaml().toUtf8()) < 0 || !dry_copy_->flush()) {
    output_->setPlainText(
        QStringLiteral("Cannot write a temporary copy of the sweep in %1 for the dry run (%2): "
                       "relative paths in the sweep resolve there. Save the sweep (Ctrl+S) in "
                       "a folder you can write to and dry-run it again.")
            .arg(baseDir(), dry_copy_->errorString()));
    dry_copy_.reset();
    return {};
  }
  output_->setPlainText(
      file_.isEmpty()
          ? QStringLiteral("(a dry run of the unsaved sweep, from a temporary copy: nothing is "
                           "saved; Start asks where to save it)")
          : QStringLiteral("(a dry run of the edits, from a temporary copy: %1 is not changed "
                           "until you save)")
                .arg(QFileInfo(file_).fileName()));
  return dry_copy_->fileName();
}

void SweepEditor::dryRun() {
  const QString binary = fathomOrComplain();
  if (binary.isEmpty() || dry_run_) return;
  output_->clear();
  const QString source = dryRunSource();
  if (source.isEmpty()) return;
  dry_run_text_ = yaml();
  dry_run_made_ = true;
  showOutputState();
  dry_run_ = new QProcess(this);
  dry_run_->setProcessChannelMode(QProcess::MergedChannels);
  const QString shown = file_.isEmpty() ? origin() : file_;
  connect(dry_run_, &QProcess::readyRead, this, [this, source, shown] {
    // Errors name the sweep as the user knows it, not the temporary copy.
    output_->appendPlainText(
        QString::fromUtf8(dry_run_->readAll()).trimmed().replace(source, shown));
  });
  connect(dry_run_, &QProcess::finished, this, [this](int code) {
    output_->appendPlainText(QStringLiteral("[fathom sweep --dry-run exited with %1]").arg(code));
    dry_run_->deleteLater();
    dry_run_ = nullptr;
    dry_copy_.reset();
  });
  dry_run_->start(binary, {QStringLiteral("sweep"), source, QStringLiteral("--dry-run")});
}

void SweepEditor::start() {
  checkNow();
  if (check_.ok && !db_location_.isEmpty()) {
    if (file_.isEmpty()) {  // say why before a save dialog appears
      QMessageBox::information(
          this, QStringLiteral("Start sweep"),
          QStringLiteral("A sweep starts from a file: its workers read it, and `fathom sweep "
                         "FILE --resume` continues it after an interruption. Choose where to "
                         "save it."));
      saveAs();
      if (file_.isEmpty() || dirty_) return;
    }
    const QString saving =
        dirty_ ? QStringLiteral("\n\nYour edits are saved to %1 first.").arg(file_) : QString();
    const std::string name = form_->form().name;
    const size_t stored = storedRuns(name);
    const QString store = QString::fromStdString(db::redact_url(db_location_.toStdString()));
    const QString question =
        stored == 0 ? QStringLiteral("Start sweep %1: %2 runs, %3 at a time, into %4?%5")
                          .arg(QString::fromStdString(name))
                          .arg(check_.runs)
                          .arg(jobs_->value())
                          .arg(store, saving)
                    : QStringLiteral(
                          "Sweep %1 has %2 runs in %3 already. Resume it, %4 at a time? Its "
                          "ended runs are kept, queued and interrupted ones continue, and "
                          "this file's runs not yet in the store are added.%5")
                          .arg(QString::fromStdString(name))
                          .arg(stored)
                          .arg(store)
                          .arg(jobs_->value())
                          .arg(saving);
    if (QMessageBox::question(this, QStringLiteral("Start sweep"), question) != QMessageBox::Yes)
      return;
  }
  startSweep();
}

bool SweepEditor::startSweep() {
  checkNow();
  if (!check_.ok) {
    QMessageBox::warning(this, QStringLiteral("Start sweep"),
                         QStringLiteral("Fix the sweep first:\n") + status_->text());
    return false;
  }
  if (db_location_.isEmpty()) {
    QMessageBox::warning(this, QStringLiteral("Start sweep"),
                         QStringLiteral("Open a run store first."));
    return false;
  }
  try {  // the workers keep checkpoints there: a server store needs one named (--artifacts)
    db::store_paths(db_location_.toStdString(), "");
  } catch (const InputError& e) {
    QMessageBox::warning(
        this, QStringLiteral("Start sweep"),
        QStringLiteral("No artifacts directory for %1:\n%2")
            .arg(QString::fromStdString(e.file()), QString::fromStdString(e.message())));
    return false;
  }
  if (!ensureSaved()) return false;
  const QString binary = fathomOrComplain();
  if (binary.isEmpty()) return false;
  // Detached, with output in a log beside the sweep file: the sweep must outlive the window.
  QProcess process;
  process.setProgram(binary);
  // The store goes in the environment, not argv (a URL may hold a password; `ps` shows argv).
  process.setProcessEnvironment(fathom_environment(db_location_));
  // A sweep the store holds runs of is refused without --resume, which is what continuing it
  // or adding a second file's runs to it means.
  const bool resume = storedRuns(form_->form().name) > 0;
  QStringList args{QStringLiteral("sweep"), file_, QStringLiteral("--jobs"),
                   QString::number(jobs_->value()), QStringLiteral("--no-progress")};
  if (resume) args << QStringLiteral("--resume");
  process.setArguments(args);
  const QString log = file_ + QStringLiteral(".log");
  process.setStandardOutputFile(log, QIODevice::Append);
  process.setStandardErrorFile(log, QIODevice::Append);
  qint64 pid = 0;
  if (!process.startDetached(&pid)) {
    QMessageBox::warning(this, QStringLiteral("Start sweep"),
                         QStringLiteral("Could not start %1").arg(binary));
    return false;
  }
  const QString name = QString::fromStdString(form_->form().name);
  output_->appendPlainText(QStringLiteral("%1 sweep %2 (pid %3), %4 runs, %5 jobs; log: %6")
                               .arg(resume ? QStringLiteral("resumed") : QStringLiteral("started"))
                               .arg(name)
                               .arg(pid)
                               .arg(check_.runs)
                               .arg(jobs_->value())
                               .arg(log));
  emit sweepStarted(name);
  return true;
}

size_t SweepEditor::storedRuns(const std::string& name) const {
  if (db_location_.isEmpty() || name.empty()) return 0;
  try {
    return db::Store::open(db_location_.toStdString(), db::OpenMode::ReadOnly)
        .list_run_states(name)
        .size();
  } catch (const std::exception&) {
    return 0;  // no store yet, or one `fathom sweep` will name the trouble with
  }
}

}  // namespace fathom::gui

#include "moc_sweep_editor.cpp"  // moc output for sweep_editor.h: compiled in this unit
