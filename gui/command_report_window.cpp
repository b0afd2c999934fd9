#include "gui/command_report_window.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gui/fathom_call.h"

namespace fathom::gui {

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
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  if (!boxes_.empty()) layout->addLayout(option_bar);
  layout->addWidget(text_, 1);
  layout->addWidget(buttons);
  for (size_t i = 0; i < options_.size(); ++i)
    if (options_[i].needs >= 0) boxes_[i]->setEnabled(boxes_.at(options_[i].needs)->isChecked());
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
  QString failed = call.problem;
  if (failed.isEmpty() && call.exit_code != 0)
    failed = call.err.isEmpty() ? QStringLiteral("`fathom %1` exited with status %2")
                                      .arg(args_.value(0))
                                      .arg(call.exit_code)
                                : call.err.trimmed();
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

void CommandReportWindow::optionToggled() {
  for (size_t i = 0; i < options_.size(); ++i)
    if (options_[i].needs >= 0) boxes_[i]->setEnabled(boxes_.at(options_[i].needs)->isChecked());
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
