// The `fathom` command line's global options, and the commands that need no LibTorch -- the
// store's, the data pipeline's (build_front_app: the front program, cli/main.cpp);
// cli/app_models.cpp adds the rest.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "cli/sweep_command_line.h"
#include "db/store.h"

namespace fathom::cli {

std::string resolve_db_path(const GlobalOptions& options) {
  // `--db ""` (an unset shell variable) silently meant ./fathom.db; it is a mistake to say.
  if (options.db_given && options.db.empty())
    throw InputError("--db", 0, "--db", "empty: give a SQLite file or a postgresql:// URL");
  if (!options.db.empty()) return options.db;
  if (const char* env = std::getenv("FATHOM_DB"); env && *env) return env;
  return "fathom.db";
}

db::StorePaths resolve_store_paths(const GlobalOptions& options) {
  return db::store_paths(resolve_db_path(options), options.artifacts);
}

db::RunRecord named_run(const db::Store& store, const std::string& id_or_name) {
  auto run = store.find_run(id_or_name);
  if (!run) throw InputError(store.path(), 0, "", "no run with id or name '" + id_or_name + "'");
  return *run;
}

void take_config_from_overrides(std::string& config_path, std::vector<std::string>& overrides) {
  if (!config_path.empty() || overrides.empty()) return;
  const std::string& last = overrides.back();
  std::error_code ec;
  if (last.find('=') == std::string::npos && std::filesystem::is_regular_file(last, ec)) {
    config_path = last;
    overrides.pop_back();
  }
}

void add_global_options(CLI::App& app, GlobalOptions& options) {
  app.require_subcommand(1);
  app.fallthrough();  // global options (--db, --json) may follow the sub-command
  app.add_option_function<std::string>(
      "--db",
      [&options](const std::string& value) {
        options.db = value;
        options.db_given = true;
      },
      "run store: a SQLite file or postgresql://user@host:port/name; default "
      "$FATHOM_DB or ./fathom.db");
  app.add_option("--artifacts", options.artifacts,
                 "directory for checkpoints and caches; default $FATHOM_ARTIFACTS, else "
                 "<db stem>.artifacts beside a SQLite file (required with a server store)");
  app.add_flag("--json", options.json, "machine-readable output");
}

void build_front_app(CLI::App& app, GlobalOptions& options) {
  add_global_options(app, options);
  add_runs_command(app, options);
  add_show_command(app, options);
  add_delete_command(app, options);
  add_cancel_command(app, options);
  add_bleu_command(app, options);
  add_export_command(app, options);
  add_report_command(app, options);
  add_db_command(app, options);
  add_compare_command(app, options);
  add_data_command(app, options);
  add_metrics_command(app, options);
  // `sweep status`, `sweep cancel` and `sweep extend`; `sweep FILE` runs a sweep, which is
  // fathom-torch's: the front's `sweep` requires one of them (cli/command_line.h hands the rest
  // on).
  add_sweep_command_line(app, std::make_shared<SweepArgs>(), options)->require_subcommand(1);
}

namespace {

// A sub-command's name typed as a command (`fathom table` for `fathom export table`): "export
// table", or "" when no command has it.
std::string command_holding(const CLI::App& app, const std::string& word) {
  std::vector<std::string> found;
  for (const CLI::App* command : app.get_subcommands({}))
    for (const CLI::App* sub : command->get_subcommands({}))
      if (sub->get_name() == word) found.push_back(command->get_name() + " " + word);
  return join(found, "' or '");
}

}  // namespace

// The first word that is not a global option names the command; a word that names none gets
// the closest command (CLI11 alone says only "A subcommand is required"). Empty when fine.
std::string unknown_command_hint(const CLI::App& app, int argc, char** argv) {
  // The command, then the sub-command of a command that needs one (`analyze beta`,
  // `export table`): each word is checked against the names one level down.
  const CLI::App* level = &app;
  std::string what = "command";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (level == &app && (word == "--db" || word == "--artifacts")) {
      ++i;  // their value
      continue;
    }
    if (word.rfind("-", 0) == 0) continue;  // --json, --help, --db=...
    std::vector<std::string> names;
    for (const CLI::App* sub : level->get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), word) != names.end()) {
      const CLI::App* next = level->get_subcommand(word);
      if (next->get_require_subcommand_min() == 0) return "";  // its words are its own
      what = level == &app && word == "analyze" ? "analysis" : "'" + word + "' sub-command";
      level = next;
      continue;
    }
    std::string hint = closest_match(word, names);
    if (hint.empty() && level == &app) hint = command_holding(app, word);
    const std::string plural = what == "analysis" ? "analyses" : what + "s";
    return "unknown " + what + " '" + word + "'" +
           (hint.empty() ? "" : "; did you mean '" + hint + "'?") + " (" + plural + ": " +
           join(names, ", ") + ")";
  }
  return "";
}

}  // namespace fathom::cli
