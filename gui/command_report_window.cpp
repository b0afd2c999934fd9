#include "gui/command_report_window.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gui/fathom_call.h"
#include "gui/file_dialog.h"

namespace fathom::gui {
namespace {

// Why `fathom COMMAND` gave no report: it did not run, or what it said on failing; "" when it
// succeeded.
QString failure_of(const FathomCall& call, const QString& command) {
  if (!call.problem.isEmpty()) return call.problem;
  if (call.exit_code == 0) return QString();
  return call.err.isEmpty()
             ? QStringLiteral("`fathom %1` exited with status %2").arg(command).arg(call.exit_code)
             : call.err.trimmed();
}

}  // namespace

CommandReportWindow::CommandReportWindow(const QString& db_location, const QStringList& args,
                                         const QString& busy,
                                         const std::vector<ReportOption>& options, QWidget* parent)
    : QDialog(parent), db_location_(db_location), busy_(busy), args_(args), options_(options) {
  text_ = new QTextBrowser;
  text_->setOpenLinks(false);
  auto* option_bar = new QHBoxLayout;
  for (const ReportOption& o : options_) {
    if (!o.heading.isEmpty()) {
      option_bar->addSpacing(16);
      option_bar->addWidget(new QLabel(o.heading));
    }
    auto* box = new QCheckBox(o.label);
    box->setChecked(o.checked);
    box->setToolTip(o.tooltip);
    option_bar->addWidget(box);
    boxes_.push_back(box);
  }
  option_bar->addStretch();
  for (QCheckBox* box : boxes_)
    connect(box, &QCheckBox::toggled, this, [this] { optionToggled(); });
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  QPushButton* copy =
      buttons->addButton(QStringLiteral("Copy &Markdown"), QDialogButtonBox::ActionRole);
  copy->setToolTip(
      QStringLiteral("the report as `fathom %1` printed it, for notes").arg(args_.value(0)));
  connect(copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(markdown_); });
  QPushButton* save = buttons->addButton(QStringLiteral("&Save..."), QDialogButtonBox::ActionRole);
  save->setToolTip(QStringLiteral("the report as Markdown, or CSV where the command writes it"));
  connect(save, &QPushButton::clicked, this, &CommandReportWindow::save);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  if (!boxes_.empty()) layout->addLayout(option_bar);
  layout->addWidget(text_, 1);
  layout->addWidget(buttons);
  enableDependentOptions();
  resize(900, 700);
}

QStringList CommandReportWindow::arguments() const {
  QStringList args = args_;
  for (size_t i = 0; i < options_.size(); ++i)
    if (boxes_[i]->isEnabled() && boxes_[i]->isChecked()) args << options_[i].args;
  return args;
}

bool CommandReportWindow::runCommand(QString* problem) {
  const FathomCall call = call_fathom(this, db_location_, arguments(), busy_);
  const QString failed = failure_of(call, args_.value(0));
  if (!failed.isEmpty()) {
    // The last report stays on the clipboard's side; the window says why this one is absent.
    markdown_.clear();
    text_->setPlainText(failed);
    if (problem) *problem = failed;
    return false;
  }
  markdown_ = call.out;
  text_->setMarkdown(markdown_);
  return true;
}

bool CommandReportWindow::saveTo(const QString& path, QString* problem) {
  if (!csv_args_.isEmpty() && path.endsWith(QStringLiteral(".csv"))) {
    const FathomCall call = call_fathom(
        this, db_location_, arguments() << csv_args_ << QStringLiteral("--out") << path, busy_);
    *problem = failure_of(call, args_.value(0));
    return problem->isEmpty();
  }
  QFile file(path);
  const QByteArray text = markdown_.toUtf8();
  if (markdown_.isEmpty() || !file.open(QIODevice::WriteOnly) || file.write(text) != text.size()) {
    *problem = markdown_.isEmpty() ? QStringLiteral("no report to save")
                                   : QStringLiteral("cannot write %1").arg(path);
    return false;
  }
  return true;
}

void CommandReportWindow::save() {
  const QString filters = csv_args_.isEmpty() ? QStringLiteral("Markdown (*.md)")
                                              : QStringLiteral("Markdown (*.md);;CSV (*.csv)");
  QString filter;
  QString path =
      choose_file_to_save(this, QStringLiteral("Save report"), QString(), filters, &filter);
  if (path.isEmpty()) return;
  if (!path.endsWith(QStringLiteral(".md")) && !path.endsWith(QStringLiteral(".csv")))
    path +=
        filter.startsWith(QStringLiteral("CSV")) ? QStringLiteral(".csv") : QStringLiteral(".md");
  QString problem;
  if (!saveTo(path, &problem)) QMessageBox::warning(this, QStringLiteral("Save report"), problem);
}

void CommandReportWindow::enableDependentOptions() {
  for (size_t i = 0; i < options_.size(); ++i)
    if (options_[i].needs >= 0) boxes_[i]->setEnabled(boxes_.at(options_[i].needs)->isChecked());
}

void CommandReportWindow::optionToggled() {
  enableDependentOptions();
  runCommand(nullptr);
}

CommandReportWindow* show_report_window(CommandReportWindow* window, QString* problem) {
  if (!window->runCommand(problem)) {
    delete window;
    return nullptr;
  }
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->show();
  return window;
}

}  // namespace fathom::gui
