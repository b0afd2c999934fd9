#include "cli/fork_sweep.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>

#include "base/config/config_diff.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "base/util/version.h"
#include "core/train/fork.h"
#include "db/fork_tags.h"

namespace fathom::cli {

ForkSweep read_fork_parent(const std::string& sweep_file, const experiments::SweepFork& at,
                           const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  auto parent = store.find_run(at.run);
  if (!parent)
    throw InputError(sweep_file, at.line, "fork.run",
                     "no run '" + at.run + "' in " + store.path() + " to fork");
  ForkSweep fork{at, *parent, {}};
  fork.parent_config =
      load_config_string(parent->config_yaml, "run " + std::to_string(parent->id) + " config", "");
  return fork;
}

void check_fork_point_of_sweep(const ForkSweep& fork, const experiments::SweepSpec& spec,
                               const std::vector<experiments::SweepRun>& runs,
                               const GlobalOptions& global) {
  int64_t max_updates = std::numeric_limits<int64_t>::max();
  for (const auto& run : runs)
    max_updates = std::min<int64_t>(max_updates, run.config.train.max_updates);
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  try {
    check_fork_point(store, fork.parent, fork.at.from, max_updates,
                     resolve_store_paths(global).run_dir(fork.parent.id));
  } catch (const InputError& e) {  // said at the sweep file's fork:, not at --from
    throw InputError(spec.file, fork.at.line, "fork.from", e.message());
  }
}

experiments::SweepRunMaker fork_maker(db::Store& store, const ForkSweep& fork,
                                      const experiments::SweepSpec& spec,
                                      const db::StorePaths& paths) {
  // Read at the first fork, once: a resumed sweep that makes none reads nothing.
  auto source = std::make_shared<std::optional<ForkSource>>();
  experiments::SweepRunMaker maker;
  maker.make = [&store, fork, source, spec_name = spec.name, paths](
                   const experiments::SweepRun& run,
                   const std::map<std::string, std::string>& tags) {
    if (!*source)
      *source =
          read_fork_source(store, fork.parent, fork.at.from, std::numeric_limits<int64_t>::max(),
                           paths.run_dir(fork.parent.id));
    const int64_t id = create_fork(
        store, **source, run.config, [&paths](int64_t made) { return paths.run_dir(made); },
        git_revision(), spec_name);
    for (const auto& [key, value] : tags) store.set_tag(id, key, value);
    std::string settings;
    for (const auto& [key, values] :
         differing_keys({config_to_json(fork.parent_config), config_to_json(run.config)}))
      if (key != "name") settings += (settings.empty() ? "" : "; ") + key + "=" + values[1];
    if (!settings.empty()) store.set_tag(id, db::kForkSettingsTag, settings);
    return id;
  };
  return maker;
}

}  // namespace fathom::cli
