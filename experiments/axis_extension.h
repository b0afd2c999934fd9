#pragma once
// `fathom sweep extend FILE --axis model.encoder_layers`: where a stored sweep's best depth (or
// any numeric axis's best value) is at an end of its grid for a line -- a setting of the other
// axes, a method -- the sweep file of one step beyond that end for those lines and the sweep's
// seeds (experiments/sweep_extension.h), so that each line's optimum gets bracketed. A line's
// best is experiments/axis_optimum.h's over the table of the metric against the axis, read at
// the runs' ends or at a budget (`--at`: an isoFLOP comparison). Reads the store only.
//
// The new step continues the grid's end geometrically: the ratio of its last two steps (2, 4,
// 8 -> 16; 1, 2, 3, 4, 6, 8 -> 11), rounded where the axis is whole numbers, nothing below 1
// there. The grid is the file's steps with those the stored runs took (their axis.* tags): run
// again after an extension's runs end, a line still best at the new end goes one step further.
// In a zip group every key gets a value at the new step: a key equal to the axis in every step
// the same (decoder_layers); an isoFLOP sweep's train.max_updates (its finished runs trained
// within 5 % of the same FLOPs) that compute over what an update costs at the new depth -- a
// line in the axis through the runs' FLOPs per update, exact for a depth (its cost per token is
// L times a layer's plus the rest); any other numeric one by the power law in the axis through
// the last two steps; each said in a note; a key that is no number refused with a note.
#include <optional>
#include <string>
#include <vector>

#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/sweep_extension.h"

namespace fathom::experiments {

struct AxisExtension {
  std::string sweep;                // its name in the store
  std::string axis;                 // the key extended
  size_t lines = 0;                 // judged
  std::vector<std::string> closed;  // lines whose best lies inside the grid
  std::vector<std::string> open;    // lines whose best is at an end (extended where it can be)
  SweepExtension file;              // empty yaml where no line is open (or none placed)
  std::vector<std::string> notes;   // lines not judged, zip values made, runs already stored
  std::string set;                  // the sweep's --set values, which --resume repeats
  std::string text;                 // the file to write: a comment saying what it is, then yaml
};

// One step beyond the end of `steps` (ascending, > 0, at least two): the ratio of the two at
// that end; `whole` rounds it, at least one away from the end. None below 1 for a whole axis,
// or at 0.
std::optional<double> step_beyond(const std::vector<double>& steps, bool above, bool whole);

struct AxisExtensionRequest {
  std::string sweep_file;  // the file the sweep was started from
  std::string name;        // its name in the store ("" the file's)
  std::string axis;        // a grid or zip key of the file, its values numbers > 0
  std::string metric = db::metric::kValidLoss;
  RunReading reading;  // at the runs' ends (value) or at a budget (at), as `export table`
  // The lines' axes, "a+b" (a method: model.norm+model.init); "" every other axis. The axes
  // in neither are the variants: pooled (agg Mean) or each cell at its best one (agg Best,
  // chosen on select_by -- a depth at its best learning rate), and a line extended gets the new
  // step at every variant.
  std::string lines;
  bool one_line = false;  // instead: no line axes, every other axis a variant (one line)
  std::string where;      // part of the sweep (experiments/run_query.h), e.g. one method
  CellAgg agg = CellAgg::Mean;
  std::string select_by = db::metric::kValidLoss;
  std::string out_dir;  // where the file will go
};

// InputError for a test metric, an axis the file does not sweep or with a value that is no
// number, a lines' key the file does not sweep, a sweep with queued or running runs, and
// whatever the table's readers throw.
AxisExtension plan_axis_extension(const db::Store& store, const AxisExtensionRequest& request);

}  // namespace fathom::experiments
