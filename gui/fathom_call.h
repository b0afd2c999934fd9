#pragma once
// `fathom ARGS` run to its end while the app waits responsively: for the few things the app
// asks of the command line because they need LibTorch, which the app never links (`fathom
// prune --model-only` rewrites checkpoints; `--previous` loads one first). The store goes in the
// child's environment (gui/fathom_binary.h), never in argv.
#include <QString>
#include <QStringList>

class QWidget;

namespace fathom::gui {

struct FathomCall {
  int exit_code = -1;  // -1: it did not start, or was cancelled
  QString out, err;
  QString problem;  // why it did not run to its end ("" when it did)
};

// Runs `fathom args` on the store at db_location. A progress dialog saying `label` appears if it
// takes more than half a second; its Cancel kills the command (what it finished stays done).
FathomCall call_fathom(QWidget* parent, const QString& db_location, const QStringList& args,
                       const QString& label);

}  // namespace fathom::gui
