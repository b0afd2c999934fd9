#include "gui/compare_window.h"

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gui/fathom_call.h"

namespace fathom::gui {

CompareWindow::CompareWindow(const QString& markdown, const QString& title, QWidget* parent)
    : QDialog(parent), markdown_(markdown) {
  setWindowTitle(title);
  text_ = new QTextBrowser;
  text_->setMarkdown(markdown);
  text_->setOpenLinks(false);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  QPushButton* copy =
      buttons->addButton(QStringLiteral("Copy &Markdown"), QDialogButtonBox::ActionRole);
  copy->setToolTip(QStringLiteral("the comparison as `fathom compare` printed it, for notes"));
  connect(copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(markdown_); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(text_, 1);
  layout->addWidget(buttons);
  resize(900, 700);
}

CompareWindow* open_compare_window(QWidget* parent, const QString& db_location,
                                   std::vector<int64_t> runs, QString* problem) {
  std::sort(runs.begin(), runs.end());
  QStringList args{QStringLiteral("compare")}, ids;
  for (int64_t id : runs) {
    args << QString::number(id);
    ids << QStringLiteral("#%1").arg(id);
  }
  // Three runs or more may be two configurations' seeds: the command tests those over their
  // seeds and the test set, or says why it cannot.
  if (runs.size() >= 3) args << QStringLiteral("--over-seeds");
  const FathomCall call = call_fathom(parent, db_location, args,
                                      QStringLiteral("Comparing runs %1...").arg(ids.join(", ")));
  if (!call.problem.isEmpty()) return *problem = call.problem, nullptr;
  if (call.exit_code != 0) {
    *problem = call.err.isEmpty()
                   ? QStringLiteral("`fathom compare` exited with status %1").arg(call.exit_code)
                   : call.err.trimmed();
    return nullptr;
  }
  auto* window = new CompareWindow(
      call.out, QStringLiteral("Compare %1 against %2").arg(ids.mid(1).join(", "), ids.front()),
      parent);
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->show();
  return window;
}

}  // namespace fathom::gui
