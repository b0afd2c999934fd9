// `fathom analyze NAME ...`: the analyses of methods.md s5 (analysis/registry.h), on a model
// at initialization (CONFIG.yaml) or on a stored run's checkpoint (RUN id or name):
//   fathom analyze beta|grad-norms|ln-scale RUN|CONFIG [--checkpoint best|last|average|init|STEP
//                  | --average N [--average-by last|best]]
//   fathom analyze output-shift CONFIG... --depths 1,2,4 [--perturb random|update|sign]
//                  [--inputs fixed|perturbed] ...
//   fathom analyze list [--run RUN] [--kind NAME]      fathom analyze show ID
// Each result is printed as a table (or, with --json, as the result JSON of docs/analyses.md)
// and recorded in the store's `analyses` table.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <variant>

#include <nlohmann/json.hpp>

#include "analysis/registry.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/stored_run_model.h"
#include "db/run_paths.h"
#include "db/store.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;
using analysis::Subject;

struct AnalyzeArgs {
  std::vector<std::string> targets;  // one RUN|CONFIG, or several CONFIGs
  ModelChoice model;                 // of a stored run
  std::vector<std::string> overrides;
  bool no_progress = false;
  analysis::AnalysisParams params;
};

bool looks_like_config(const std::string& target) {
  const std::string ext = fs::path(target).extension().string();
  return fs::is_regular_file(target) || ext == ".yaml" || ext == ".yml";
}

void run_analysis(const GlobalOptions& global, const std::string& name, const AnalyzeArgs& args) {
  const analysis::Analysis& a = analysis::find_analysis(name);
  const std::string db_path = resolve_db_path(global);
  const db::StorePaths paths = resolve_store_paths(global);
  const auto start = std::chrono::steady_clock::now();
  analysis::AnalysisParams params = args.params;
  params.progress = !args.no_progress;

  // Configs are checked before the store is opened: a typo leaves nothing behind.
  if (!a.takes_many_configs && args.targets.size() != 1)
    throw InputError("fathom analyze " + name, 0, "", "give exactly one RUN or CONFIG");
  std::vector<Subject> subjects;
  std::optional<db::Store> store;
  for (const auto& target : args.targets) {
    std::cerr << "analyze " << name << ": loading " << target << "\n";
    if (looks_like_config(target)) {
      if (args.model.average)
        throw InputError(target, 0, "--average",
                         "a config's model is at initialization; --average reads a stored run");
      subjects.push_back(analysis::subject_from_config(target, args.overrides, paths.cache_root,
                                                       !a.takes_many_configs));
      continue;
    }
    if (a.takes_many_configs)
      throw InputError(target, 0, "",
                       name + " takes config files (it builds models at each depth)");
    if (!args.overrides.empty())
      throw InputError(target, 0, "--set", "overrides apply to config files, not to stored runs");
    if (!store) store.emplace(db::Store::open(db_path));
    subjects.push_back(load_chosen_model(*store, paths, target, args.model));
  }

  // Analyses that assume an encoder and a decoder say so on a decoder-only model.
  if (!a.reads_decoder_only)
    for (const auto& s : subjects)
      if (is_decoder_only(s.config.model))
        config_error(s.config, "model.arch",
                     name +
                         " does not read decoder-only models yet (it assumes an encoder and "
                         "a decoder)");
  nlohmann::json result = a.run(subjects, params);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  nlohmann::json recorded = params.to_json();
  recorded["subjects"] = nlohmann::json::array();
  for (const auto& s : subjects) recorded["subjects"].push_back(s.label);
  recorded["overrides"] = args.overrides;
  db::NewAnalysis row;
  row.kind = name;
  row.params_json = recorded.dump();
  row.result_json = result.dump();
  row.elapsed_s = elapsed;
  if (subjects.size() == 1 && subjects[0].run_id) {
    row.run_id = subjects[0].run_id;
    row.checkpoint = subjects[0].checkpoint;
  }
  if (!store) store.emplace(db::Store::open(db_path));
  const int64_t id = store->add_analysis(row);
  std::fprintf(stderr, "analysis %lld (%s) recorded in %s; took %.2f s\n",
               static_cast<long long>(id), name.c_str(), store->path().c_str(), elapsed);

  if (global.json) {
    std::cout << result.dump(2) << "\n";
    return;
  }
  for (const auto& s : subjects) std::cout << s.label << " (" << s.config.name << ")\n";
  a.print(result, std::cout);
}

void list_analyses(const GlobalOptions& global, const std::string& run, const std::string& kind) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path, db::OpenMode::ReadOnly);
  std::optional<int64_t> run_id;
  if (!run.empty()) {
    auto record = store.find_run(run);
    if (!record) throw InputError(store.path(), 0, "--run", "no run '" + run + "' in the store");
    run_id = record->id;
  }
  const auto rows = store.list_analyses(run_id, kind);
  if (global.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows)
      out.push_back({{"id", r.id},
                     {"run_id", r.run_id ? nlohmann::json(*r.run_id) : nlohmann::json()},
                     {"kind", r.kind},
                     {"checkpoint", r.checkpoint},
                     {"created_at", r.created_at},
                     {"elapsed_s", r.elapsed_s}});
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf("%6s %6s %-14s %-10s %9s  %s\n", "id", "run", "kind", "checkpoint", "elapsed",
              "subjects");
  for (const auto& r : rows) {
    std::string subjects;
    for (const auto& s :
         nlohmann::json::parse(r.params_json).value("subjects", nlohmann::json::array()))
      subjects += (subjects.empty() ? "" : " ") + s.get<std::string>();
    std::printf("%6lld %6s %-14s %-10s %8.2fs  %s\n", static_cast<long long>(r.id),
                r.run_id ? std::to_string(*r.run_id).c_str() : "-", r.kind.c_str(),
                r.checkpoint.empty() ? "-" : r.checkpoint.c_str(), r.elapsed_s, subjects.c_str());
  }
}

void show_analysis(const GlobalOptions& global, int64_t id) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path, db::OpenMode::ReadOnly);
  auto record = store.get_analysis(id);
  if (!record) throw InputError(store.path(), 0, "", "no analysis with id " + std::to_string(id));
  const nlohmann::json result = nlohmann::json::parse(record->result_json);
  if (global.json) {
    std::cout << result.dump(2) << "\n";
    return;
  }
  std::cout << "analysis " << record->id << ": " << record->kind << " " << record->params_json
            << "\n";
  analysis::find_analysis(record->kind).print(result, std::cout);
}

// The flags an analysis reads (Analysis::options), made from their declarations
// (analysis/params.h): typed, with their help, choices and range.
void add_analysis_options(CLI::App& sub, const std::vector<std::string>& flags,
                          analysis::AnalysisParams& p) {
  using Bound = analysis::AnalysisOption::Bound;
  for (const auto& flag : flags) {
    const analysis::AnalysisOption& o = analysis::find_analysis_option(flag);
    CLI::Option* opt = std::visit(
        [&](auto member) { return sub.add_option("--" + o.flag, p.*member, o.help); }, o.field);
    if (std::holds_alternative<std::vector<int> analysis::AnalysisParams::*>(o.field))
      opt->delimiter(',');
    if (!o.choices.empty()) opt->check(CLI::IsMember(o.choices));
    if (o.bound != Bound::Any)
      opt->check(o.bound == Bound::Positive ? positive_number() : non_negative_number());
    if (o.required) opt->required();
  }
}

}  // namespace

void add_analyze_command(CLI::App& app, GlobalOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "Analyses of methods.md s5 on a config at init or a stored run (docs/analyses.md)");
  cmd->require_subcommand(1);
  cmd->fallthrough();
  for (const auto& [name, a] : analysis::analyses()) {
    auto args = std::make_shared<AnalyzeArgs>();
    CLI::App* sub = cmd->add_subcommand(name, a.doc);
    sub->fallthrough();
    if (a.takes_many_configs) {
      sub->add_option("configs", args->targets, "YAML run configs, compared side by side")
          ->required();
    } else {
      // Not expected(1): CLI11 would then report a stray flag's value ("--steps 5" for an
      // analysis without --steps) as a second target instead of naming the flag.
      sub->add_option("target", args->targets, "a stored run (id or name) or a YAML config")
          ->required();
      add_model_choice_options(*sub, args->model,
                               "which model of a stored run: best, last, average "
                               "(eval.average_checkpoints), init or a kept update STEP");
    }
    add_analysis_options(*sub, a.options, args->params);
    sub->add_option("--set", args->overrides, "override a config key: --set model.norm=pre")
        ->take_all();
    sub->add_flag("--no-progress", args->no_progress, "no progress output");
    const std::string analysis_name = name;
    sub->callback([&options, analysis_name, args] { run_analysis(options, analysis_name, *args); });
  }

  auto run = std::make_shared<std::string>(), kind = std::make_shared<std::string>();
  CLI::App* list = cmd->add_subcommand("list", "recorded analyses");
  list->fallthrough();
  list->add_option("--run", *run, "only this run's analyses");
  list->add_option("--kind", *kind, "only this analysis");
  list->callback([&options, run, kind] { list_analyses(options, *run, *kind); });

  auto id = std::make_shared<int64_t>(0);
  CLI::App* show = cmd->add_subcommand("show", "print a recorded analysis");
  show->fallthrough();
  show->add_option("id", *id, "analysis id (see `fathom analyze list`)")->required();
  show->callback([&options, id] { show_analysis(options, *id); });
}

}  // namespace fathom::cli
