#pragma once
// What each analysis of methods.md s5 is outside the training core, registered once: how its
// stored result draws (figures), what it shows as a table and in words, whether it reads a
// run's checkpoint or builds fresh models from CONFIGs, and the options the desktop app
// starts with. `fathom export plot analysis`, the desktop app's kind list, its table and its
// caption all come from here; the computation itself is analysis/<name>.cpp (LibTorch), and
// AnalysisKinds.MatchTheComputedAnalyses keeps the two lists equal. No Qt, no LibTorch.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plot/analysis_figures.h"

namespace fathom::plot {

struct ResultTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct AnalysisKind {
  std::string name;                // as `fathom analyze NAME`
  bool builds_own_models = false;  // takes CONFIGs (output-shift), not a run's checkpoint
  std::string starting_options;    // the desktop app's editable default, e.g. "--depths 1,2,4,8"
  std::function<std::vector<NamedFigure>(const nlohmann::json&, const std::string& source)> figures;
  // Optional: the numbers as tables, and words for the caption ("" for none).
  std::function<std::vector<ResultTable>(const nlohmann::json&)> tables;
  std::function<std::string(const nlohmann::json&)> caption;
};

// A kind defined in a file of its own (plot/<name>_kind.cpp), listed by analysis_kinds().
AnalysisKind noise_scale_kind();

// Every analysis, in the order the desktop app lists them.
const std::vector<AnalysisKind>& analysis_kinds();
std::vector<std::string> analysis_kind_names();

// The kind named `name`; InputError naming `source` and the field `--kind` otherwise.
const AnalysisKind& find_analysis_kind(const std::string& name, const std::string& source);

}  // namespace fathom::plot
