#pragma once
// The analyses of methods.md s5, by name. Each analysis is one file with a register_*
// function; all of them are registered once, explicitly, in builtin_analyses.cpp.
// `fathom analyze NAME ...` (cli/cmd_analyze.cpp) loads the subjects, calls run(), prints
// print()'s table (or the result JSON with --json) and stores the result in the `analyses`
// table. The JSON layouts are documented in docs/analyses.md and meant to stay stable.
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/subject.h"

namespace fathom::analysis {

// Options shared by the analyses; each one reads the fields it documents.
struct AnalysisParams {
  std::vector<int> depths;            // output-shift: encoder depths N to sweep
  std::string perturb = "random";     // output-shift: random | update (methods.md s5.2)
  int draws = 3;                      // output-shift: random perturbations averaged
  int inits = 1;                      // output-shift: initializations averaged (seeds seed..seed+K-1)
  double eps = 1e-4;                  // output-shift: perturbation size (eta for `update`)
  std::string layers;                 // linearize: "enc:1-6,dec:1-6" (1-based); "" = all
  std::string objective = "task";     // linearize: task (loss) | mse (to F_l's output)
  int steps = 2000;                   // linearize: most Adam updates of W, b per layer
  double lr = 1e-3;                   // linearize: Adam learning rate
  int eval_every = 100;               // linearize: updates between validation checks
  int patience = 3;                   // linearize: checks without improvement before stopping
  int sample_batches = 8;             // linearize: training batches of the least-squares fit
  bool progress = true;               // progress bars on stderr

  nlohmann::json to_json() const;
};

struct Analysis {
  std::string doc;                    // one line for `fathom analyze --help`
  // Several CONFIGs compared in one table (they build their own models); otherwise exactly
  // one RUN or CONFIG whose model is loaded before run() is called.
  bool takes_many_configs = false;
  // The optional flags of AnalysisParams it reads, by flag name without "--" (e.g. "depths").
  std::vector<std::string> options;
  std::function<nlohmann::json(std::vector<Subject>&, const AnalysisParams&)> run;
  std::function<void(const nlohmann::json& result, std::ostream& out)> print;
};

using AnalysisRegistry = std::map<std::string, Analysis>;

// Every built-in analysis (registered on first use, thread-safe).
const AnalysisRegistry& analyses();

// The registered analysis, or std::invalid_argument listing the names.
const Analysis& find_analysis(const std::string& name);

}  // namespace fathom::analysis
