#pragma once
// The comparison table's note on which model its final valid_* and test_* values measure (the
// run tag final_model, db/final_model_tag.h): said where runs averaged checkpoints or chose
// theirs by another metric, and a warning where one table mixes models without separating
// them by the keys that chose them (eval.average_checkpoints, eval.average_by,
// train.best_metric). Torch-free.
#include <optional>
#include <string>
#include <vector>

#include "experiments/comparison_table.h"

namespace fathom::experiments {

// The note, or nullopt where every run measured its best checkpoint by valid_loss, or the
// values are not final valid_* or test_* values.
std::optional<std::string> final_model_note(const std::vector<TableRun>& runs,
                                            const TableOptions& options);

}  // namespace fathom::experiments
