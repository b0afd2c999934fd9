#pragma once
// Sweep specs (`fathom sweep SWEEP.yaml`, docs/sweeps.md): a base config plus axes over dotted
// config keys -- grid (cartesian), zip (paired lists), seeds -- and exclude rules. This part
// parses a spec, expands it into runs and validates every run's config; scheduling the runs
// is the CLI's job. Torch-free: method names are checked through the `extra_check` hook.
//
// Every error is an InputError naming the sweep file (or the base config), the line of the
// offending YAML node and the dotted key.
#include <any>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/config/config.h"

namespace fathom::experiments {

// One value of an axis as written in the sweep file.
struct SweepValue {
  std::string text;       // YAML text (flow style), as in run names and tags
  std::string yaml;       // what is applied: `text`, with a relative path made absolute
  std::string canonical;  // the value as the config holds it: 1e-3 and 0.001 compare equal
  int line = 0;           // line in the sweep file
};

// One independent axis: a grid key, a zip group (keys varied together) or the seeds.
struct SweepAxis {
  enum class Kind { Grid, Zip, Seeds };
  Kind kind = Kind::Grid;
  std::vector<std::string> keys;               // dotted keys; more than one only in a zip group
  std::vector<std::vector<SweepValue>> steps;  // steps[i][k]: value of keys[k] at step i
  int line = 0;                                // where the axis (its first key) is written
};

// Drops every run whose axis values equal all of `match` (a subset of the axis keys).
struct SweepExclude {
  std::vector<std::pair<std::string, SweepValue>> match;
  int line = 0;
};

// A launcher's section of the sweep file (`slurm:`), parsed by that launcher's own entry
// (experiments/launcher_registry.h): the launcher the file asks for.
struct LauncherSettings {
  std::string launcher;  // the launcher's registered name
  int line = 0;          // line of the section's key
  std::any settings;     // what its parse returned; read with section_settings<T>()
};

// A fork sweep's `fork: {run: 12, from: 300}` (in place of `base:`): every run continues the
// stored run 12 from its checkpoint at update 300 with the settings its axes and set: give
// (`fathom train --fork`, core/train/fork.h), its base config the parent's.
struct SweepFork {
  std::string run;  // the parent: an id or a run name, as --fork takes it
  int64_t from = 0;
  int line = 0;  // line of `fork:`
};
// Reads a fork sweep's base config: the parent's stored config (the CLI reads the run store);
// an InputError when there is no such run.
using ForkBaseReader = std::function<RunConfig(const SweepFork&)>;

struct SweepSpec {
  std::string name;               // [A-Za-z0-9_.-]+; prefix of every run name
  std::string file;               // the sweep file, as named in errors
  int line = 0;                   // line of `name:`
  std::optional<SweepFork> fork;  // set: a fork sweep, `base` its parent's config
  RunConfig base;                 // the base config with `set:` applied
  std::vector<SweepAxis> axes;    // expansion order: grid keys, zip groups, seeds
  std::vector<SweepExclude> exclude;
  int exclude_line = 0;                      // line of `exclude:`
  std::optional<LauncherSettings> launcher;  // a launcher's section, at most one
  std::vector<std::string> overrides;        // `fathom sweep --set KEY=VALUE`, applied to base

  // Every axis key in run-name order (zip groups contribute each of their keys).
  std::vector<std::string> axis_keys() const;
};

// An axis value of one expanded run.
struct SweepAxisValue {
  std::string key;    // dotted config key
  std::string value;  // YAML text as written in the sweep file
  int line = 0;       // where it is written in the sweep file
};

struct SweepRun {
  std::string name;                  // "<sweep>/norm=post,init=xavier,seed=1"; = config.name
  RunConfig config;                  // base + set + axis values; locations point at the sweep
  std::vector<SweepAxisValue> axes;  // in SweepSpec::axis_keys() order
};

// Parses a sweep file; a relative base path is relative to the file's directory. Checks the
// spec's shape, keys and value types (each value is applied to the base config), not the
// expanded runs; see expand_sweep().
// A fork sweep needs `fork_base` to read its parent's config (without it: an InputError at
// `fork:` saying so).
SweepSpec load_sweep_file(const std::string& path, const ForkBaseReader& fork_base = {});

// The sweep file's own top-level keys (name, base, grid, ...); each registered launcher's
// section (`slurm:`) is one too. Any other top-level key is refused.
std::vector<std::string> sweep_keys();

// Parses sweep YAML text; `origin` names it in errors, `base_dir` resolves relative paths.
SweepSpec load_sweep_string(const std::string& yaml, const std::string& origin,
                            const std::string& base_dir, const ForkBaseReader& fork_base = {});

// `fathom sweep FILE --set KEY=VALUE...`: fixed config values on top of the file's base and
// set: (a lab reruns a preset bigger, or on other data, without editing it), kept in
// spec.overrides and located at "--set" in errors. A key an axis varies is refused, naming the
// axis's line in the sweep file, as is `name` (rename the sweep with rename_sweep).
void apply_sweep_overrides(SweepSpec& spec, const std::vector<std::string>& overrides);

// `fathom sweep FILE --name NAME`: the sweep (and the prefix of its run names) under another
// name, so a rerun with other settings does not meet the original's runs in the store.
void rename_sweep(SweepSpec& spec, const std::string& name);

// The most runs one sweep file may expand to, whatever --yes says: each run holds a whole
// config, and expanding a 10^7-point grid took 15 GB before failing (issue 57 item 3).
constexpr size_t kMostRuns = 100'000;

// The runs the axes multiply to, before exclude rules (saturating at SIZE_MAX): known without
// expanding anything.
size_t count_combinations(const SweepSpec& spec);

// Expands the axes (first grid key slowest, seeds innermost), drops excluded runs, and checks
// every run with check_config() and then `extra_check` (the CLI passes check_model_methods).
// An error about a key an axis set is located at that axis value in the sweep file; the run's
// name is appended to the message.
std::vector<SweepRun> expand_sweep(const SweepSpec& spec,
                                   const std::function<void(const RunConfig&)>& extra_check = {});

// The `--dry-run` listing: a table with one row per run (its axis values and name) and a
// final count line.
std::string describe_sweep(const std::vector<SweepRun>& runs);

// Sets dotted `key` of `config` from YAML text with the schema's type checks (through
// apply_overrides) and records `at` as the key's location; errors are located at `at`.
void set_config_key(RunConfig& config, const std::string& key, const std::string& yaml,
                    const SourceLocation& at);

}  // namespace fathom::experiments
