#pragma once
// The reference translations of a run's test set, as text, read without preparing its training
// corpus or building a vocabulary: what `fathom compare` and `fathom export verdicts
// --paired-bootstrap` score the stored hypotheses against. Reading them through load_dataset()
// mapped, or first prepared, the whole training corpus (minutes at WMT14's size on a machine
// whose prepared-corpus cache lacks it) and needed LibTorch's program.
#include <string>
#include <vector>

#include "base/config/config.h"

namespace fathom {

// load_dataset(cfg, ...).test_target, for data.task "parallel" (the test target file, relative
// paths against `config_dir`; none when the config names no test split) and "synthetic" (the
// generated task's test split). Throws InputError naming the file (and line) for an unreadable
// file, and naming data.task for "lm" (a language model translates nothing) or an unknown task.
std::vector<std::string> test_references(const DataConfig& cfg, const std::string& config_dir);

}  // namespace fathom
