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

#include "analysis/params.h"
#include "analysis/subject.h"
#include "base/util/registry.h"

namespace fathom::analysis {

struct Analysis {
  std::string doc;  // one line for `fathom analyze --help`
  // Several CONFIGs compared in one table (they build their own models); otherwise exactly
  // one RUN or CONFIG whose model is loaded before run() is called.
  bool takes_many_configs = false;
  // It reads a decoder-only model's one stack (model.arch); the others are refused on one,
  // naming model.arch, rather than computed as if it had an encoder.
  bool reads_decoder_only = false;
  // The flags it reads (analysis/params.h), without "--" (e.g. "depths").
  std::vector<std::string> options;
  std::function<nlohmann::json(std::vector<Subject>&, const AnalysisParams&)> run;
  std::function<void(const nlohmann::json& result, std::ostream& out)> print;
};

using AnalysisRegistry = Registry<Analysis>;

// Every built-in analysis (registered on first use, thread-safe).
const AnalysisRegistry& analyses();

// The registered analysis, or std::invalid_argument listing the names.
// The analysis `name`; std::invalid_argument naming the registered ones (and the closest).
const Analysis& find_analysis(const std::string& name);

}  // namespace fathom::analysis
