#pragma once
// `fathom compare` of runs chosen in the runs view, in a window of its own: the settings that
// differ, the final metrics, each run's curves against the first, and the paired bootstrap
// tests of test BLEU and test perplexity (a language model's cut text in circular blocks) --
// the command's own Markdown, rendered, so the app and the command line never disagree. The
// command reads stored files and no model; the app runs it rather than link what reads a
// corpus's references (cli/paired_tests.h).
#include <cstdint>
#include <vector>

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace fathom::gui {

class CompareWindow : public QDialog {
  Q_OBJECT
 public:
  CompareWindow(const QString& markdown, const QString& title, QWidget* parent = nullptr);
  QTextBrowser* text() const { return text_; }
  // What the command printed, as "Copy Markdown" puts it on the clipboard.
  const QString& markdown() const { return markdown_; }

 private:
  QTextBrowser* text_ = nullptr;
  QString markdown_;
};

// Runs `fathom compare` on `runs` (two or more; the lowest id is the baseline the others are
// tested against -- a fork's parent, or the older run) and opens the window, deleted on close.
// Three runs or more: also `--over-seeds`, the test of two configurations over their seeds.
// nullptr and *problem when the command could not run or failed.
CompareWindow* open_compare_window(QWidget* parent, const QString& db_location,
                                   std::vector<int64_t> runs, QString* problem);

}  // namespace fathom::gui
