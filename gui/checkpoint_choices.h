#pragma once
// The checkpoints of a run the app offers to run a model from (the Translate and Attention tabs):
// its rows best, last, average and every kept update, by the names `--checkpoint` takes.
#include <vector>

#include "db/records.h"

class QComboBox;

namespace fathom::gui {

// Fills `box` with the run's checkpoints (label; the --checkpoint name as item data), keeping the
// one chosen while it still exists, else "best". The fallback resume point is not offered.
void set_checkpoint_choices(QComboBox* box, const std::vector<db::Artifact>& artifacts);

}  // namespace fathom::gui
