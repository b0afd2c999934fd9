#pragma once
// A sweep over train.lr whose runs are stored ended without training, for the tests of
// `fathom sweep extend` and the desktop app's "Extend grid...": the sweep file (train.lr [1e-3,
// 2e-3, 4e-3] x model.norm [post, pre], seeds 1 and 2, on tiny_config_yaml's synthetic task)
// and, for each run it expands to, the validation loss at update 0 (l0 = ln 10) and at its end
// -- Post-LN 2.0, 1.9, 1.7 (lowest at the top rate: open), Pre-LN 2.0, 1.5, 1.8 (inside), seed 2
// 0.01 higher. Header-only.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "db/store.h"
#include "experiments/sweep_spec.h"
#include "tests/support/fathom_cli.h"

namespace fathom::testing {

// Writes base.yaml and s.yaml (sweep "s") into `dir`; the sweep file's path.
inline std::string write_lr_sweep_file(const std::filesystem::path& dir) {
  std::ofstream(dir / "base.yaml") << tiny_config_yaml("base", "{max_updates: 50}");
  std::ofstream(dir / "s.yaml") << "name: s\n"
                                   "base: base.yaml\n"
                                   "grid:\n"
                                   "  train.lr: [1e-3, 2e-3, 4e-3]\n"
                                   "  model.norm: [post, pre]\n"
                                   "seeds: [1, 2]\n";
  return (dir / "s.yaml").string();
}

// Stores every run of `sweep_file` in `db`, ended, with the losses above; the runs at
// `queued_rate` (a rate's text) are left queued.
inline void store_lr_sweep_runs(const std::string& db, const std::string& sweep_file,
                                const std::string& queued_rate = "") {
  const std::map<std::string, std::map<std::string, double>> end = {
      {"post", {{"1e-3", 2.0}, {"2e-3", 1.9}, {"4e-3", 1.7}}},
      {"pre", {{"1e-3", 2.0}, {"2e-3", 1.5}, {"4e-3", 1.8}}}};
  auto store = db::Store::open(db);
  for (const auto& run : experiments::expand_sweep(experiments::load_sweep_file(sweep_file))) {
    std::map<std::string, std::string> axes;
    for (const auto& a : run.axes) axes[a.key] = a.value;
    db::NewRun n;
    n.name = run.name;
    n.sweep = "s";
    n.config_json = R"({"model":{"norm":")" + axes["model.norm"] + R"("}})";  // for --where
    const int64_t id = store.create_run(n);
    for (const auto& [key, value] : axes) store.set_tag(id, "axis." + key, value);
    if (axes["train.lr"] == queued_rate) continue;
    const double loss =
        end.at(axes["model.norm"]).at(axes["train.lr"]) + (axes["train.seed"] == "2" ? 0.01 : 0.0);
    store.write_metrics(id,
                        {{0, "valid_loss", std::log(10.0), 0.0}, {50, "valid_loss", loss, 0.0}});
    store.set_final_metric(id, "valid_loss", loss);
    store.finish_run(id, "finished");
  }
}

}  // namespace fathom::testing
