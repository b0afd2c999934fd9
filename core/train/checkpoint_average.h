#pragma once
// Checkpoint averaging: the model a run's final evaluation measures when eval.average_checkpoints
// is N > 0 -- the element-wise mean of the weights of the last N checkpoints kept by
// train.keep_checkpoint_every, as the seed papers evaluate (Vaswani et al. 2017 average the
// last 5; Liu et al. 2020 "the last 10 checkpoints are averaged before inference"; Xu et al.
// 2020 "the averaged model of the last 5 checkpoints"). Parameters are averaged (summed in
// float64); buffers -- Admin's omega, fixed after profiling; sigma-reparam's power-iteration
// vectors; the position table -- are the newest checkpoint's.
#include <string>
#include <vector>

namespace fathom {

class TransformerImpl;

// Loads each of `paths` (checkpoints of `model`'s shape) and leaves their mean in `model`.
// InputError naming the file for one that does not load; `paths` must not be empty.
void average_checkpoints(const std::vector<std::string>& paths, TransformerImpl& model);

}  // namespace fathom
