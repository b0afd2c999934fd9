#include "analysis/subject.h"

#include <filesystem>
#include <optional>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/model/admin.h"
#include "core/model/registry.h"
#include "core/train/batch_stream.h"
#include "core/train/checkpoint_contents.h"
#include "core/train/device.h"
#include "core/train/memory_check.h"

namespace fathom::analysis {

Batch first_training_batch(const RunConfig& config, const TokenPairs& train) {
  if (train.empty()) config_error(config, "data.train_source", "no training pairs");
  // The trainer's first batch (core/train/training_session.cpp): its plan, its examples
  // without data.pad_to_multiple's columns.
  const BatchPlan plan = plan_batches(train, config.data.max_tokens, config.data.pad_to_multiple);
  return collate(train, BatchStream(train, plan, config.train.seed, 0, 0).next().ids);
}

Transformer model_at_init(const RunConfig& config, int64_t vocab_size, const Batch& batch,
                          const std::string& admin_profile_json) {
  // The estimate `train` refuses with: an analysis of a model that cannot fit names the key
  // instead of growing until LibTorch's allocator gives up (issue 57 item 4).
  check_model_fits(config);
  Transformer model = build_model(config, vocab_size, config.train.seed);
  if (!admin_profile_json.empty() && config.model.init == "admin") {
    apply_admin_profile(*model, AdminProfile::from_json(admin_profile_json, "stored profile"));
  } else {
    // Admin profiling runs in train mode: its dropout masks follow from the seed.
    torch::manual_seed(config.train.seed);
    prepare_model(*model, InitContext{config, batch, {}});
  }
  model->eval();
  return model;
}

Subject subject_from_config(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& cache_dir, bool with_model) {
  Subject s;
  s.label = path;
  s.config = load_config_file(path);
  apply_overrides(s.config, overrides);
  check_config(s.config);
  check_model_methods(s.config);
  s.data = std::make_shared<Dataset>(load_run_dataset(s.config, cache_dir, ""));
  s.vocab_size = s.data->vocab->size();
  s.batch = first_training_batch(s.config, s.data->train);
  if (with_model) s.model = model_at_init(s.config, s.vocab_size, s.batch);
  return s;
}

Subject subject_from_run(const StoredRun& run, const std::string& cache_dir) {
  Subject s;
  s.run_id = run.id;
  s.checkpoint = run.checkpoint;
  s.label = "run " + std::to_string(run.id) + " (" + run.checkpoint + ")";
  const std::string origin = "run " + std::to_string(run.id) + " config";
  // The checkpoint carries the config it was trained with; read whole, once.
  std::optional<CheckpointContents> saved;
  if (run.checkpoint_path.empty()) {
    s.config = load_config_string(run.config_yaml, origin, "");
  } else {
    saved.emplace(read_checkpoint(run.checkpoint_path));
    s.config = saved->config;
  }
  s.data = std::make_shared<Dataset>(load_run_dataset(s.config, cache_dir, ""));
  s.vocab_size = s.data->vocab->size();
  s.batch = first_training_batch(s.config, s.data->train);
  if (run.checkpoint_path.empty()) {
    s.model = model_at_init(s.config, s.vocab_size, s.batch, run.admin_profile_json);
    return s;
  }
  const int64_t vocab = saved->model->vocab_size();
  if (vocab != s.vocab_size)
    throw InputError(run.checkpoint_path, 0, "data.vocab",
                     "checkpoint has " + std::to_string(vocab) + " vocabulary entries, the " +
                         "run's data now gives " + std::to_string(s.vocab_size));
  s.model = saved->model;
  return s;
}

void move_subject_to(Subject& s, const std::string& device) {
  const torch::Device where = resolve_device(device);
  if (where == torch::Device(torch::kCPU)) return;
  if (s.model) s.model->to(where);
  s.batch = s.batch.to(where);
}

}  // namespace fathom::analysis
