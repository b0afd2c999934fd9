#pragma once
// The options of the analyses (methods.md s5), each declared once: its flag, the AnalysisParams
// field it sets, its help and the values it accepts. An analysis names the flags it reads in
// Analysis::options; `fathom analyze` makes those flags from this table and
// AnalysisParams::to_json records every field under the flag's name (with '_' for '-').
// A new option is one field here and one row in params.cpp.
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace fathom::analysis {

struct AnalysisParams {
  std::vector<int> depths;  // output-shift: depths N to sweep (the encoder, or an LM's stack)
  std::string perturb = "random";   // output-shift: random | update | sign (methods.md s5.2)
  std::string inputs = "fixed";     // output-shift: fixed (x0 kept) | perturbed (embeddings too)
  int draws = 3;                    // output-shift: random perturbations averaged
  int inits = 1;                    // output-shift: initializations averaged (seeds seed..seed+K-1)
  double eps = 1e-4;                // output-shift: perturbation size (random, sign)
  std::string layers;               // linearize: "enc:1-6,dec:1-6" (1-based); "" = all
  std::string objective = "task";   // linearize: task (loss) | mse (to F_l's output)
  std::string lstm_map = "full";    // linearize: full ([o; c] -> [o; c]) | output (o -> o)
  int steps = 2000;                 // linearize: most Adam updates of W, b per layer
  double lr = 1e-3;                 // linearize: Adam learning rate
  int eval_every = 100;             // linearize: updates between validation checks
  int patience = 3;                 // linearize: checks without improvement before stopping
  int iterations = 100;             // sharpness: most Lanczos steps (Hessian-vector products)
  int lanczos_steps = 20;           // block-hessian: Lanczos steps per block
  int sentences = 16;               // block-hessian: the first batch's first pairs (0: all)
  int batches = 32;                 // noise-scale: training batches whose gradients are compared
  std::string batching = "random";  // noise-scale: random (i.i.d. pairs) | run (the run's own)
  std::string device = "cpu";       // where the model computes: cpu, cuda, cuda:N
  int sample_batches = 8;  // linearize: training batches of the least-squares fit (no flag)
  bool progress = true;    // progress bars on stderr (not recorded)

  nlohmann::json to_json() const;
};

struct AnalysisOption {
  using Field = std::variant<int AnalysisParams::*, double AnalysisParams::*,
                             std::string AnalysisParams::*, std::vector<int> AnalysisParams::*>;
  enum class Bound { Any, Positive, NonNegative };

  std::string flag;  // without "--", e.g. "eval-every"
  Field field;
  std::string help;
  std::vector<std::string> choices;  // a text option's allowed values; empty: any text
  Bound bound = Bound::Any;          // a number's range
  bool required = false;             // must be given whenever the analysis runs
};

// Every option, in the order `--help` lists them.
const std::vector<AnalysisOption>& analysis_options();

// The option with this flag; std::logic_error when none (an analysis names a flag not declared).
const AnalysisOption& find_analysis_option(const std::string& flag);

// "eval-every" -> "eval_every": the option's key in recorded parameters.
std::string option_key(const std::string& flag);

}  // namespace fathom::analysis
