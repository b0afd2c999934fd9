#pragma once
// A `fathom` command's Markdown report in a window of its own: `fathom compare` of chosen runs,
// `fathom export verdicts` of the comparison view's table. The command's own Markdown, rendered,
// so the app and the command line never disagree; the app runs the command rather than link
// what reads a corpus's references (cli/paired_tests.h). Options the report can be asked again
// with (a test paired by seed, the test over the test set, another metric) are check boxes that
// add their arguments and run the command again.
#include <utility>
#include <vector>

#include <QDialog>
#include <QString>
#include <QStringList>

class QCheckBox;
class QTextBrowser;

namespace fathom::gui {

struct ReportOption {
  ReportOption(QString label_, QStringList args_, QString tooltip_, bool checked_ = false,
               int needs_ = -1)
      : label(std::move(label_)),
        args(std::move(args_)),
        tooltip(std::move(tooltip_)),
        checked(checked_),
        needs(needs_) {}

  QString label;     // "Pair by &seed"
  QStringList args;  // added when ticked: {"--pair-seeds"}, {"--metrics", "test_bleu"}
  QString tooltip;
  bool checked = false;
  int needs = -1;   // the index of an option this one needs checked (disabled without it)
  QString heading;  // a label before this box, starting a group of options ("Family also:")
};

class CommandReportWindow : public QDialog {
  Q_OBJECT
 public:
  // `args` the command and its fixed arguments; `busy` what the progress dialog says.
  CommandReportWindow(const QString& db_location, const QStringList& args, const QString& busy,
                      const std::vector<ReportOption>& options, QWidget* parent = nullptr);

  // Runs the command with the checked options' arguments and shows what it printed; false and
  // *problem (also shown in the window) when it could not run or failed.
  bool runCommand(QString* problem);
  // The arguments the next run passes: the fixed ones, then each checked option's.
  QStringList arguments() const;

  // Where the command also writes CSV: the arguments that ask for it ({"--format", "csv"});
  // Save... then offers CSV beside Markdown.
  void setCsvArguments(const QStringList& args) { csv_args_ = args; }
  // Save...'s work: the report shown as Markdown (.md), or, with CSV arguments and a .csv
  // path, the command run again to write CSV there (`--out`); false and *problem when not.
  bool saveTo(const QString& path, QString* problem);

  QTextBrowser* text() const { return text_; }
  // What the command printed, as "Copy Markdown" puts it on the clipboard.
  const QString& markdown() const { return markdown_; }
  QCheckBox* option(int index) const { return boxes_.at(static_cast<size_t>(index)); }

 private:
  void save();
  void enableDependentOptions();  // an option is enabled where the one it needs is ticked
  void optionToggled();

  QString db_location_, busy_;
  QStringList args_, csv_args_;
  std::vector<ReportOption> options_;
  std::vector<QCheckBox*> boxes_;
  QTextBrowser* text_ = nullptr;
  QString markdown_;
};

// Opens `window` once its command has run (deleted on close); nullptr and *problem, the window
// deleted, when it failed.
CommandReportWindow* show_report_window(CommandReportWindow* window, QString* problem);

}  // namespace fathom::gui
