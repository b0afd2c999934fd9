#pragma once
// The report's "Samples" section (train.valid_samples; db/valid_samples.h): what a model makes
// of the first validation sentences at its last validation -- a translation model's greedy
// translations, a language model's greedy and top-k sampled continuations. A sweep shows the
// run it would choose on `select_by` (validation data), one run report its own.
#include <ostream>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::experiments {

void samples_section(std::ostream& out, const db::Store& store,
                     const std::vector<db::RunRecord>& runs, const std::string& select_by);

}  // namespace fathom::experiments
