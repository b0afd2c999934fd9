#pragma once
// `fathom ARGS` run to its end while the app waits responsively: for the few things the app
// asks of the command line because they need LibTorch, which the app never links (`fathom
// prune --model-only` rewrites checkpoints; `--previous` loads one first; `fathom translate`
// runs a model). The store goes in the child's environment (gui/fathom_binary.h), never in argv.
#include <cstdint>
#include <optional>

#include <QByteArray>
#include <QString>
#include <QStringList>

class QWidget;

namespace fathom::gui {

struct FathomCall {
  int exit_code = -1;  // -1: it did not start, or was cancelled
  QString out;
  QString err;      // its standard error less the progress lines
  QString problem;  // why it did not run to its end ("" when it did)
};

// Runs `fathom args` on the store at db_location, with `input` on its standard input. A
// progress dialog saying `label` appears if it takes more than half a second; it counts what
// the command says it has done (progress_of) and its Cancel kills the command (what it
// finished stays done).
FathomCall call_fathom(QWidget* parent, const QString& db_location, const QStringList& args,
                       const QString& label, const QByteArray& input = {});

struct ProgressLine {
  int64_t done = 0, total = 0;
};
// What a line of a command's standard error says it has done: a progress bar's plain line
// ("translate 12/40 (30%) ...", base/util/progress.h) or a count ("[3/8] run 7 (...)", `fathom
// prune`); nullopt for any other line.
std::optional<ProgressLine> progress_of(const QString& line);

}  // namespace fathom::gui
