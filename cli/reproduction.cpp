#include "cli/reproduction.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "experiments/computed_with.h"
#include "experiments/run_agreement.h"

namespace fathom::cli {

RunConfig reproduction_config(const db::Store& store, const db::RunRecord& original) {
  const std::string id = std::to_string(original.id);
  if (original.config_yaml.empty())
    throw InputError(store.path(), 0, "--reproduce", "run " + id + " has no stored config");
  RunConfig config = load_config_string(original.config_yaml, "run " + id + " config", "");
  config.name = original.name + " (reproduces #" + id + ")";
  return config;
}

void record_reproduction(db::Store& store, int64_t run, const db::RunRecord& original) {
  store.set_tag(run, "reproduces", std::to_string(original.id));
}

bool report_reproduction(db::Store& store, const db::RunRecord& original, int64_t run,
                         double tolerance, bool json) {
  const auto again = store.find_run(std::to_string(run));
  const std::string a = "#" + std::to_string(original.id), b = "#" + std::to_string(run);
  const experiments::RunAgreement agreement =
      experiments::compare_stored_trajectories(store, original.id, run, tolerance);
  const auto differently = experiments::computed_differently(
      {experiments::computed_with(original, store.tags(original.id)),
       experiments::computed_with(*again, store.tags(run))});
  const std::string verdict = experiments::describe_agreement(agreement, a, b);
  store.set_tag(run, "reproduction", (agreement.agrees() ? "agrees: " : "differs: ") + verdict);
  if (json) {
    // The agreement's own fields (experiments::agreement_json) with the runs and the verdict.
    nlohmann::json j = experiments::agreement_json(agreement);
    j["original"] = original.id;
    j["run"] = run;
    j["status"] = again->status;
    j["verdict"] = verdict;
    j["computed_differently"] = differently;
    std::cout << j.dump(2) << "\n";
    return agreement.agrees();
  }
  std::cout << "run " << run << (agreement.agrees() ? " reproduces " : " does not reproduce ")
            << "run " << original.id << ": " << verdict << "\n";
  if (differently.empty()) {
    std::cout << "  computed with the same code revision, LibTorch, OpenBLAS kernels and device\n";
  } else {
    for (const auto& [key, values] : differently)
      std::cout << "  computed differently: " << key << " " << (values[0].empty() ? "?" : values[0])
                << " (" << a << ") against " << (values[1].empty() ? "?" : values[1]) << " (" << b
                << ")\n";
  }
  return agreement.agrees();
}

}  // namespace fathom::cli
