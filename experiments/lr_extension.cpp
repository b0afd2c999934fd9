#include "experiments/lr_extension.h"

#include <filesystem>
#include <set>

#include "base/util/error.h"
#include "db/run_status.h"
#include "experiments/lr_sensitivity.h"

namespace fathom::experiments {
namespace {

namespace fs = std::filesystem;

std::string value_name(RunValue v) {
  return v == RunValue::Last ? "last" : v == RunValue::Best ? "best" : "final";
}

std::string header(const std::string& sweep_file, const std::string& metric, RunValue value,
                   const std::vector<std::string>& extends) {
  std::string text = "# Written by `fathom sweep extend " + sweep_file +
                     "`: one rate beyond the grid's end\n# for each learning-rate curve whose "
                     "lowest " +
                     metric + " (" + value_name(value) +
                     ") was at that end, so that the sweep's\n# tables choose each one's rate "
                     "inside its grid. Run it with --resume (it joins the\n# sweep's queue). "
                     "Curves:\n";
  for (const auto& line : extends) text += "#   " + line + "\n";
  return text;
}

}  // namespace

void refuse_unended(const std::vector<db::RunRecord>& runs, const std::string& name,
                    const std::string& shown) {
  if (runs.empty()) throw InputError(shown, 0, "--name", "no sweep named '" + name + "'");
  int waiting = 0;
  for (const auto& r : runs) waiting += !db::is_terminal_status(r.status);
  if (waiting > 0)
    throw InputError(shown, 0, "sweep",
                     std::to_string(waiting) + " of sweep " + name +
                         "'s runs are queued or running; extend its grid once they have ended");
}

LrExtension plan_lr_extension(const db::Store& store, const std::string& sweep_file,
                              const std::string& name, const std::string& metric, RunValue value,
                              const std::string& out_dir) {
  if (metric.rfind("test_", 0) == 0)
    throw InputError("fathom sweep extend", 0, "--metric",
                     metric +
                         " is a test metric: a rate is chosen on validation (valid_loss), "
                         "and the test metric is what is then reported");
  const SweepSpec spec = load_sweep_file(sweep_file);
  LrExtension x;
  x.sweep = name.empty() ? spec.name : name;
  const auto runs = store.list_runs(x.sweep);
  refuse_unended(runs, x.sweep, store.path());
  LrSensitivity s;
  try {
    s = load_lr_sensitivity(store, x.sweep, metric, value);
  } catch (const InputError& e) {
    if (e.field() != "--sweep") throw;  // a metric that is no loss names itself
    throw InputError(sweep_file, 0, "grid",
                     "sweep " + x.sweep + " has no " + kLrKey +
                         " axis of two or more values in the store: no learning-rate grid to "
                         "extend");
  }
  x.curves = s.curves.size();
  x.edges = grid_edges(s);
  x.file = extend_sweep(sweep_file, spec, x.edges.open, out_dir, x.sweep);
  x.notes = x.edges.notes;
  x.notes.insert(x.notes.end(), x.file.notes.begin(), x.file.notes.end());
  if (auto note = stored_already(runs, x.file, "rate")) x.notes.push_back(*note);
  x.set = sweep_set_values(store, runs);
  if (!x.file.yaml.empty())
    x.text = header(sweep_file, metric, value, x.file.extends) + x.file.yaml;
  return x;
}

std::optional<std::string> stored_already(const std::vector<db::RunRecord>& runs,
                                          const SweepExtension& file, const std::string& what) {
  std::set<std::string> stored;
  for (const auto& r : runs) stored.insert(r.name);
  int again = 0;
  for (const auto& run : file.runs) again += stored.count(run) > 0;
  if (again == 0) return std::nullopt;
  return std::to_string(again) + " of its runs are in the store already (that " + what +
         " was tried and left no value: failed? `--retry failed` runs them again)";
}

std::string sweep_set_values(const db::Store& store, const std::vector<db::RunRecord>& runs) {
  const auto tags = store.tags(runs.front().id);
  const auto it = tags.find("sweep.set");
  return it == tags.end() ? "" : it->second;
}

std::string free_extension_path(const std::string& sweep_file) {
  const fs::path p(sweep_file);
  for (int i = 1;; ++i) {
    const fs::path candidate = p.parent_path() / (p.stem().string() + "-edge" +
                                                  (i == 1 ? "" : std::to_string(i)) + ".yaml");
    if (!fs::exists(candidate)) return candidate.string();
  }
}

}  // namespace fathom::experiments
