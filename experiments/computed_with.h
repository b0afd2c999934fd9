#pragma once
// What a run's numbers were computed with beyond its settings: the OpenBLAS kernels (tag
// blas.core, base/util/blas_setup.h), the device, the code's revision, the LibTorch version
// (tag libtorch: 1.13 and 2.x take other attention and optimizer paths on the same CPU) and the
// threads each process computed on (tag threads: OpenBLAS, and LibTorch in its reductions,
// split their work by the thread count, which changes the rounding -- the quickstart's gradient
// norm parted at update 10 between OpenBLAS on 1 and on 2 threads; train.threads 0 takes the
// machine's cores, so equal settings differ there too). Equal
// settings give other numbers when one of these differs (the main job's Post-LN BLEU moved 1.3
// points between Haswell and Cooperlake kernels at one commit), so `fathom compare`, `fathom export
// table` and the desktop app's Compare view say where the runs they set side by side differ in
// them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::experiments {

// Key ("blas.core", "device", "git_rev", "libtorch", "threads") -> value; "" where the run did not
// record it (runs from before the tag, or computed without OpenBLAS).
using ComputedWith = std::map<std::string, std::string>;

// One run's, from its record and tags.
ComputedWith computed_with(const db::RunRecord& run,
                           const std::map<std::string, std::string>& tags);

// The keys whose values are not the same in every run, each run's value in the runs' order.
std::map<std::string, std::vector<std::string>> computed_differently(
    const std::vector<ComputedWith>& runs);

// A table's note when its runs were computed differently: each differing key's values and the
// runs that have them, e.g. "blas.core: Haswell (#1-#12), Cooperlake (#13, #15)" (or "(40 runs)"
// past four ranges); none when all agree. `ids` and `runs` are parallel.
std::optional<std::string> computed_differently_note(const std::vector<int64_t>& ids,
                                                     const std::vector<ComputedWith>& runs);

// "#1-#3, #7": ascending ids, consecutive ones as a range.
std::string run_id_ranges(std::vector<int64_t> ids);

}  // namespace fathom::experiments
