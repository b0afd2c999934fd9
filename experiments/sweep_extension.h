#pragma once
// `fathom sweep extend`: the sweep file that adds, to a stored sweep, one rate beyond each
// learning-rate curve whose optimum its grid leaves open (experiments/lr_grid_edges.h), for
// exactly those curves and the sweep's seeds. It keeps the original file's layout -- its base
// and set:, its grid keys and zip groups (so run names, axis tags and the sweep.axes layout the
// tables and the desktop app read are the original's), only the steps the open curves use --
// and drops every other combination with exclude: rules. It carries the sweep's name, so
// `fathom sweep EXTENSION --resume` adds its runs to the sweep's one queue and every table
// then chooses over all its rates. The file is checked by expanding it as `fathom sweep`
// would before it is written.
#include <map>
#include <string>
#include <vector>

#include "experiments/lr_grid_edges.h"
#include "experiments/sweep_spec.h"

namespace fathom::experiments {

struct SweepExtension {
  std::string yaml;                  // the sweep file's text
  std::vector<std::string> runs;     // the names of the runs it expands to
  std::vector<std::string> extends;  // "LABEL: RATE (above|below BEST)" for each curve it extends
  std::vector<std::string> notes;    // open curves it cannot extend, and why
};

// `original`: the sweep file `spec` was read from (its YAML is copied, not re-rendered, where
// it is not replaced); `out_dir`: where the new file goes, against which a relative base path
// is rewritten. `name`: the sweep's name in the store (the file's, or its --name). InputError
// (field --axis) when the sweep's train.lr is not a grid key of the file.
// A fork sweep's file is expanded with `fork_base` (sweep_spec.h).
SweepExtension extend_sweep(const std::string& original, const SweepSpec& spec,
                            const std::vector<OpenEdge>& open, const std::string& out_dir,
                            const std::string& name, const ForkBaseReader& fork_base = {});

// One line to extend along an axis of the file (a rate's curve, a method's depths): its
// setting of the other axes' keys and the new step, a text per key of the axis (every key of a
// zip group: a new depth with its max_updates).
struct AxisEdge {
  std::string label;
  std::map<std::string, std::string> setting;
  std::vector<std::string> next;
  std::string said;  // what `extends` says of it: "post: 16 (above 8)"
};

// The same along spec.axes[axis], a grid key or a zip group: the file holds only the new steps
// on it (what extend_sweep does for the rate, which it calls this for).
SweepExtension extend_sweep_along(const std::string& original, const SweepSpec& spec, size_t axis,
                                  const std::vector<AxisEdge>& edges, const std::string& out_dir,
                                  const std::string& name, const ForkBaseReader& fork_base = {});

}  // namespace fathom::experiments
