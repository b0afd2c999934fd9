#pragma once
// What an analysis looks at: a model (at initialization from a config, or from a stored run's
// checkpoint), its config, and one real batch -- the run's first training batch, made exactly
// as the trainer makes it (core/train/trainer.cpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/model/transformer.h"

namespace fathom::analysis {

struct Subject {
  std::string label;  // "run 12 (best)" or the config file
  RunConfig config;
  int64_t vocab_size = 0;
  Batch batch;                    // the first training batch, on the CPU
  std::shared_ptr<Dataset> data;  // the config's data (for analyses that train or evaluate)
  Transformer model{nullptr};     // null when the analysis builds its own models
  std::optional<int64_t> run_id;  // set for a stored run
  std::string checkpoint;         // best | last | init for a run; "" for a config
};

// The batch update 1 trains on: epoch 0, position 0 of the run's batch order.
Batch first_training_batch(const RunConfig& config, const TokenPairs& train);

// A model at initialization: build_model() with train.seed, then the init's data-dependent
// phase (Admin profiling) on `batch`. `admin_profile_json` (a stored profile) is applied
// instead of profiling when given, so a run's initial model is reproduced exactly.
Transformer model_at_init(const RunConfig& config, int64_t vocab_size, const Batch& batch,
                          const std::string& admin_profile_json = "");

// A config file (with `--set` overrides) at initialization. `cache_dir` holds SentencePiece
// models. The model is built only when `with_model`.
Subject subject_from_config(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& cache_dir, bool with_model);

// A stored run: `checkpoint_path` is the .pt file for best/last, "" for `init` (rebuilt from
// `config_yaml` and the stored Admin profile, if any).
struct StoredRun {
  int64_t id = 0;
  std::string config_yaml;         // runs.config_yaml
  std::string checkpoint;          // best | last | init
  std::string checkpoint_path;     // "" for init
  std::string admin_profile_json;  // tag admin.profile, "" if none
};
Subject subject_from_run(const StoredRun& run, const std::string& cache_dir);

// Moves the subject's model and batch to `device` (the analyses' --device: cpu, cuda, cuda:N),
// for an analysis that computes wherever its tensors are. A GPU LibTorch cannot see is an
// InputError naming --device, before anything is computed.
void move_subject_to(Subject& s, const std::string& device);

}  // namespace fathom::analysis
