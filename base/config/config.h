#pragma once
// The run configuration: one struct per section, defaults in place, one comment per field.
// A YAML config file only overrides these defaults (see base/config/config_schema.h for the
// key names, types and checks, and docs/config.md for the generated reference).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fathom {

// Depth-wise LSTM connection options (methods.md s4; Xu et al., tables 2-4).
struct LstmConfig {
  std::string hidden = "ffn";   // ffn (eq. 8, d -> d_ff -> d) | lstm (eq. 6, one layer)
  std::string merge = "add";    // decoder: self- and encoder-attention outputs, add | concat
  std::string share = "gates";  // across the layers of a stack: gates | all | none
};

// Admin options (methods.md s3; Liu et al. 2020).
struct AdminConfig {
  std::string profile;  // "" = profile on the first batch; a run id or a JSON file
};

// Model shape and the method under study (methods.md sections 1-4).
struct ModelConfig {
  // encoder_decoder: the translation model of the 2020 papers | decoder_only: one causal
  // self-attention stack, a language model (the decoder's layers without encoder attention).
  std::string arch = "encoder_decoder";
  int d_model = 512;                // hidden width d
  int heads = 8;                    // attention heads; must divide d_model
  int d_ff = 2048;                  // FFN inner width
  int encoder_layers = 6;           // N encoder layers (2N sub-layers)
  int decoder_layers = 6;           // M decoder layers (3M sub-layers)
  double dropout = 0.1;             // on embeddings and on every branch before the shortcut
  double attention_dropout = 0.0;   // on attention probabilities
  double activation_dropout = 0.0;  // inside the FFN, after the ReLU
  std::string norm = "post";        // sub-layer style by registry name: post, pre, peri, mix, ...
  std::string decoder_norm;         // the decoder stack's style when it differs; "": model.norm
  std::string init = "xavier";      // initialization, by registry name; methods.md s3
  std::string connection = "residual";    // how sub-layers are connected, by registry name
  bool tie_decoder_embeddings = true;     // decoder input embedding == output projection
  bool share_embeddings = true;           // one embedding for source and target (joint vocab)
  std::string embedding_init = "method";  // method: as model.init draws them | normal: N(0, d^-1/2)
  std::string fused_attention = "auto";   // auto | on | off (core/model/attention.h)
  bool sigma_reparam = false;  // every linear as (gamma / sigma(W)) W (core/model/sigma_reparam.h)
  bool qk_norm = false;        // LayerNorm over each head's queries and keys (core/model/qk_norm.h)
  double ds_init_alpha = 1.0;  // ds_init: Glorot bound * alpha / sqrt(layer)
  double mix_ln_alpha = 0.25;  // norm mix: the first floor(alpha * L) layers are Post-LN
  double dyt_alpha = 0.5;      // norm dyt: initial alpha of every DyT
  LstmConfig lstm;             // connection: depthwise_lstm
  AdminConfig admin;           // init: admin
  // Gated attention: none, headwise, elementwise (core/model/attention_gate.h)
  std::string attention_gate = "none";
  // Depth-wise parameterization: standard | depth_mup | completep
  // (core/model/depth_parameterization.h; methods.md s3.1)
  std::string parameterization = "standard";
  int base_depth = 2;  // L_base: the depth whose learning rate the rules transfer from
  int hc_streams = 0;  // connection hyper | mhc: n residual streams (core/model/hyper_connection.h)
};

// Subword vocabulary (SentencePiece), trained on the training corpus and cached.
struct VocabConfig {
  std::string type = "bpe";  // bpe | unigram
  int size = 8000;           // vocabulary size, special symbols included
};

// The built-in synthetic translation task (deterministic from its seed).
struct SyntheticConfig {
  int vocab = 24;          // number of content symbols
  int min_len = 4;         // shortest source sentence (symbols)
  int max_len = 16;        // longest source sentence (symbols)
  int train_size = 20000;  // training pairs
  int valid_size = 500;    // validation pairs
  int test_size = 500;     // test pairs
  std::uint64_t seed = 1;  // the task is a function of this seed alone
};

// Where the parallel data comes from and how it is batched.
struct DataConfig {
  std::string task =
      "parallel";            // parallel (text files) | synthetic | lm (model.arch decoder_only)
  std::string train_source;  // paths: plain text or .gz, relative to the config file
  std::string train_target;
  std::string valid_source;
  std::string valid_target;
  std::string test_source;
  std::string test_target;
  std::string train_text;  // lm: one document per line, plain text or .gz
  std::string valid_text;
  std::string test_text;
  int lm_block = 0;  // lm: 0 = one example per document; K = running text cut into K-token blocks
  VocabConfig vocab;
  SyntheticConfig synthetic;
  int max_tokens = 4096;    // token budget per batch: rows * longest side, padded
  int max_len = 128;        // drop training pairs with a side longer (subwords)
  int pad_to_multiple = 1;  // training batches' lengths padded up to a multiple of this
};

// Optimization, schedule, validation and divergence detection.
struct TrainConfig {
  std::string optimizer = "adam";  // adam | radam | muon (hidden matrices; Adam for the rest) | sgd
  double lr = 5e-4;                // peak learning rate
  std::array<double, 2> betas{0.9, 0.98};
  double muon_momentum = 0.95;  // muon: the momentum of its (Nesterov) updates
  double eps = 1e-8;
  double weight_decay = 0.0;  // decoupled (AdamW-style) weight decay
  int warmup = 4000;          // linear warmup updates of every schedule
  int max_updates = 1000;     // stop after this many updates

  // The learning rate after the warmup (base/config/lr_schedule.h).
  std::string schedule = "inverse_sqrt";
  double min_lr_ratio = 0.0;         // linear, cosine, wsd: the last update's rate / lr
  double decay_fraction = 0.2;       // wsd: the share of the updates that decay
  std::string decay_shape = "sqrt";  // wsd: linear | cosine | sqrt (1 - sqrt(p))

  double label_smoothing = 0.1;  // epsilon of the label-smoothed cross entropy
  int update_tokens = 0;         // accumulate batches up to this many target tokens (0: off)
  double clip_norm = 0.0;        // clip the gradient's global L2 norm (0: off)
  std::uint64_t seed = 1;        // parameters, dropout and batch order follow from it
  int valid_every = 200;         // validate (and checkpoint) every K updates
  // Budgets ("compute=3e14", "tokens=5e7", "update=4000") a run also validates just inside,
  // so that a table at that budget reads it there (core/train/budget_readings.h).
  std::vector<std::string> valid_at;
  // Also validate just inside every multiple of this many training FLOPs (0: off): curves of
  // models of unequal cost read at the same compute.
  double valid_every_flops = 0;
  int valid_samples = 3;        // greedy translations of the first K validation pairs stored at
                                // each validation (run tag samples.u<update>; 0: none)
  int valid_sample_top_k = 10;  // a language model's samples: also one top-k sampled (0: off)
  int valid_bleu = 0;  // BLEU of the first K validation sentences at each validation (0: off)
  int patience = 0;    // stop after K validations without a new best best_metric (0: never)
  double patience_min_delta = 0;           // ... where a new best must be better by more than this
  std::string best_metric = "valid_loss";  // what checkpoint_best and patience follow
  int log_every = 10;                      // write training metrics every K updates
  int grad_norm_every =
      0;  // log per-layer gradient norms gradnorm.<layer> every K updates (0: off)
  bool noise_scale = false;  // log the gradient noise scale noise.* at each log point
  int keep_checkpoint_every =
      0;                     // keep the model at every K-th update as checkpoint_<K>.pt (0: off)
  int keep_checkpoints = 0;  // of those, only the newest N stay on disk (0: every one)
  bool keep_checkpoint_optimizer = true;  // kept checkpoints also hold the optimizer state
  double z_loss = 0.0;              // auxiliary loss z_loss * (log Z)^2 per target token (z_loss.h)
  int probe_every = 0;              // record the training probes every K updates (0: off; probes.h)
  int probe_sentences = 16;         // validation pairs in the fixed batch the probes read
  int sharpness_every = 0;          // lambda_max of the loss's Hessian every K updates (0: off)
  int sharpness_sentences = 16;     // training pairs in the fixed batch the sharpness is taken on
  int sharpness_iterations = 20;    // Lanczos steps (Hessian-vector products) per eigenvalue
  double divergence_factor = 10.0;  // diverged if loss > factor * first loss (0: off)
  int threads = 0;                  // CPU threads (0: all cores); see core/train/device.h
  std::string precision = "fp32";   // fp32 | bf16 (autocast) | fp16 (autocast + loss scaling)
  bool checkpoint_activations = false;  // recompute each encoder/decoder layer in backward
  bool cuda_graphs = false;      // forward + loss + backward replayed as CUDA graphs, one per shape
  int processes = 1;             // data-parallel ranks of one run (docs/distributed.md)
  int rank_timeout_s = 1800;     // a collective waiting longer ends the run (a rank hung)
  bool reduce_overlap = true;    // start gradient buckets' all-reduce during the backward
  int reduce_bucket_kb = 25600;  // the most gradient one all-reduce carries (KiB)
  std::string reduce_backend = "auto";  // auto | gloo | nccl (core/train/reduce_backend.h)
};

// Decoding and test evaluation after training.
struct EvalConfig {
  int beam = 5;                 // beam size (1: greedy)
  double length_penalty = 1.0;  // score / length^penalty, as fairseq
  double max_len_a = 1.2;       // max output length = a * source length + b
  int max_len_b = 10;
  int max_sentences = 0;  // evaluate on the first K test sentences (0: all)
  // The final evaluation's model: the mean of the last N checkpoints kept by
  // train.keep_checkpoint_every (core/train/checkpoint_average.h); 0: checkpoint_best.
  int average_checkpoints = 0;
  // Which N: "last" (the newest) or "best" (those whose update's train.best_metric is best).
  std::string average_by = "last";
};

// Alerts (experiments/notify.h, docs/sweeps.md "Alerts"): a command the scheduler runs once per
// run and event, given the run as environment variables (FATHOM_RUN_ID, ...).
struct NotifyConfig {
  std::vector<std::string> on;    // diverged | failed | crashed | stalled | finished |
                                  // sweep_finished (empty: no alerts)
  std::string command;            // run with /bin/sh -c; "" = none
  double stalled_after_s = 1800;  // "stalled": running with no new metric row for this long
  double timeout_s = 30;          // the command is killed after this long
};

struct SourceLocation {
  std::string file;
  int line = 0;
};

struct RunConfig {
  std::string name = "run";     // run name in the store
  std::string device = "auto";  // auto | cpu | cuda | cuda:N
  ModelConfig model;
  DataConfig data;
  TrainConfig train;
  EvalConfig eval;
  NotifyConfig notify;

  // Where each dotted key was set (file and line), so later checks can point at it.
  std::map<std::string, SourceLocation> locations;
  std::string source_file;  // the YAML file the config was read from, if any
  SourceLocation where(const std::string& key) const;
};

// model.arch: decoder_only has no encoder; its one stack is the decoder, 2 sub-layers a layer.
inline bool is_decoder_only(const ModelConfig& m) { return m.arch == "decoder_only"; }
inline int encoder_layer_count(const ModelConfig& m) {
  return is_decoder_only(m) ? 0 : m.encoder_layers;
}
inline int decoder_sublayers_per_layer(const ModelConfig& m) { return is_decoder_only(m) ? 2 : 3; }

}  // namespace fathom
