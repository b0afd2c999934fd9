#pragma once
// The checkpoints of a run the app offers to run a model from (the Translate and Attention tabs):
// its rows best, last, average and every kept update, by the names `--checkpoint` takes, and
// the means of its newest kept ones that `--average N` makes.
#include <QStringList>
#include <string>
#include <vector>

#include "db/records.h"

class QComboBox;

namespace fathom::gui {

// Fills `box` with the run's checkpoints (label; the --checkpoint name as item data, "mean:N"
// for the mean of the N newest kept), keeping the one chosen while it still exists, else
// "best". The fallback resume point is not offered. Means of 2, 3, 5 and 10, as many as kept.
void set_checkpoint_choices(QComboBox* box, const std::vector<db::Artifact>& artifacts);

// The command-line arguments of a choice's item data: {"--checkpoint", name} or
// {"--average", "N"}.
QStringList checkpoint_arguments(const QString& choice);

// What the command records as the model of `choice` (an analysis row's checkpoint): the name,
// or for "mean:N" "mean of N, updates a b c" over the run's N newest kept updates ("" when it
// kept fewer).
std::string recorded_checkpoint(const QString& choice, const std::vector<db::Artifact>& artifacts);

}  // namespace fathom::gui
