// `fathom db copy SRC DST`: moves a whole run store -- runs, metrics, final metrics, tags,
// artifact rows, analyses -- between backends (a SQLite file and a PostgreSQL database, either
// way), ids kept, and checks the row counts. Artifact files are not moved: they live in the
// artifacts directory (--artifacts), which the copy's message names.
#include <cstdio>
#include <iostream>

#include "base/util/error.h"
#include "base/util/progress.h"
#include "cli/commands.h"
#include "db/store.h"

namespace fathom::cli {
namespace {

std::string describe(const db::StoreCounts& c) {
  return std::to_string(c.runs) + " runs, " + std::to_string(c.metrics) + " metric rows, " +
         std::to_string(c.final_metrics) + " final metrics, " + std::to_string(c.tags) + " tags, " +
         std::to_string(c.artifacts) + " artifacts, " + std::to_string(c.analyses) + " analyses, " +
         std::to_string(c.probe_points) + " probe points";
}

void copy_store(const std::string& from, const std::string& to, bool progress) {
  const auto source = db::Store::open(from, db::OpenMode::ReadOnly);
  auto target = db::Store::open(to);
  // Ids are kept (artifact directories and analyses refer to them): only into an empty store.
  if (const auto there = target.counts(); there.runs > 0 || there.analyses > 0)
    throw InputError(target.path(), 0, "DST",
                     "the destination already holds " + describe(there) +
                         "; copy into a new file or an empty database");
  const auto runs = source.list_runs();
  ProgressBar bar("copy", static_cast<int64_t>(runs.size()), progress);
  for (size_t i = 0; i < runs.size(); ++i) {
    target.import_run(source.export_run(runs[i].id));  // one transaction per run
    bar.update(static_cast<int64_t>(i + 1), "");
  }
  for (const auto& analysis : source.list_analyses()) target.import_analysis(analysis);
  bar.finish("");
  const auto want = source.counts(), got = target.counts();
  if (!(want == got))
    throw std::runtime_error("copy incomplete: " + source.path() + " holds " + describe(want) +
                             " but " + target.path() + " received " + describe(got));
  std::printf("copied %s\n  from %s\n  to   %s\n", describe(got).c_str(), source.path().c_str(),
              target.path().c_str());
  std::printf(
      "artifact files (checkpoints, logs) stay where they are: copy the artifacts "
      "directory too and pass it as --artifacts with the new store\n");
}

// Opening a store for writing migrates it (db/migrations.h); the read-only commands refuse an
// older schema rather than change a file they only read. This is that step on its own, e.g.
// for a study store restored from docs/studies/.
void upgrade_store(const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global));  // migrates
  std::printf("%s: schema version %d, this build's\n", store.path().c_str(),
              store.schema_version());
}

}  // namespace

void add_db_command(CLI::App& app, GlobalOptions& global) {
  CLI::App* cmd = app.add_subcommand("db", "Run-store maintenance");
  cmd->require_subcommand(1);
  auto from = std::make_shared<std::string>(), to = std::make_shared<std::string>();
  auto no_progress = std::make_shared<bool>(false);
  CLI::App* copy = cmd->add_subcommand(
      "copy", "Copy a whole store (SQLite file or postgresql:// URL) into an empty one, checked");
  copy->add_option("SRC", *from, "source store")->required();
  copy->add_option("DST", *to, "destination store: a new file or an empty database")->required();
  copy->add_flag("--no-progress", *no_progress, "no progress bar");
  copy->callback([from, to, no_progress] { copy_store(*from, *to, !*no_progress); });
  CLI::App* upgrade = cmd->add_subcommand(
      "upgrade", "Bring the store (--db) to this build's schema, as any writing command would");
  upgrade->callback([&global] { upgrade_store(global); });
}

}  // namespace fathom::cli
