#pragma once
// Test support for the analyses' tests: a small model on the synthetic task at initialization
// (Admin profiled on its first batch) with that batch. Header-only.
#include <memory>
#include <string>

#include "analysis/subject.h"
#include "base/config/config.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/model/registry.h"

namespace fathom::analysis {

// d 32, 4 heads, d_ff 64, N encoder and M decoder layers, 12 words, seed 3.
inline RunConfig small_config(const std::string& norm, const std::string& init, int N = 3,
                              int M = 2) {
  RunConfig c;
  c.device = "cpu";
  c.model.d_model = 32;
  c.model.heads = 4;
  c.model.d_ff = 64;
  c.model.encoder_layers = N;
  c.model.decoder_layers = M;
  c.model.dropout = 0.1;
  c.model.norm = norm;
  c.model.init = init;
  c.model.mix_ln_alpha = 0.5;  // mix: the first floor(N/2) layers Post-LN, the rest Pre-LN
  c.data.task = "synthetic";
  c.data.synthetic.vocab = 12;
  c.data.synthetic.train_size = 200;
  c.data.synthetic.valid_size = 10;
  c.data.synthetic.test_size = 10;
  c.data.max_tokens = 512;
  c.train.seed = 3;
  return c;
}

struct Fixture {
  RunConfig config;
  int64_t vocab = 0;
  Batch batch;
  Transformer model{nullptr};
};

// A subject as `fathom analyze` makes one from a config, with its data (for the analyses that
// evaluate or train): the model at initialization (unless not `with_model`: an analysis that
// builds its own) and the first training batch, on the CPU.
inline Subject subject_with_data(const RunConfig& config, const std::string& label,
                                 bool with_model = true) {
  Subject s;
  s.config = config;
  check_model_methods(s.config);
  s.data = std::make_shared<Dataset>(load_run_dataset(s.config, "", ""));
  s.vocab_size = s.data->vocab->size();
  s.batch = first_training_batch(s.config, s.data->train);
  if (with_model) s.model = model_at_init(s.config, s.vocab_size, s.batch);
  s.label = label;
  return s;
}

inline Fixture make(const RunConfig& config) {
  Fixture f;
  f.config = config;
  check_model_methods(config);
  Dataset data = load_dataset(config.data, "", "");
  f.vocab = data.vocab->size();
  f.batch = first_training_batch(config, data.train);
  f.model = model_at_init(config, f.vocab, f.batch);
  return f;
}

}  // namespace fathom::analysis
