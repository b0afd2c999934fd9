#include "base/config/config_schema.h"

#include "base/config/lr_schedule.h"

#include <locale>
#include <map>
#include <sstream>

namespace fathom {
namespace {

template <typename Section, typename T>
FieldSpec field(std::string key, FieldType type, Section RunConfig::*section, T Section::*member,
                std::string doc, std::vector<std::string> choices = {}) {
  return FieldSpec{std::move(key),
                   type,
                   std::move(doc),
                   std::move(choices),
                   {},
                   [section, member](RunConfig& c) -> void* { return &((c.*section).*member); }};
}

template <typename T>
FieldSpec top(std::string key, FieldType type, T RunConfig::*member, std::string doc,
              std::vector<std::string> choices = {}) {
  return FieldSpec{
      std::move(key),     type, std::move(doc),
      std::move(choices), {},   [member](RunConfig& c) -> void* { return &(c.*member); }};
}

std::vector<FieldSpec> build_fields() {
  using F = FieldType;
  using M = ModelConfig;
  using D = DataConfig;
  using T = TrainConfig;
  using E = EvalConfig;
  std::vector<FieldSpec> f;
  f.push_back(top("name", F::String, &RunConfig::name, "run name in the store"));
  f.push_back(top("device", F::String, &RunConfig::device, "auto | cpu | cuda | cuda:N"));

  auto model = [&](std::string key, F type, auto M::*member, std::string doc,
                   std::vector<std::string> choices = {}) -> FieldSpec& {
    f.push_back(field("model." + key, type, &RunConfig::model, member, doc, choices));
    return f.back();
  };
  model("arch", F::String, &M::arch,
        "encoder_decoder: the translation model; decoder_only: one causal self-attention stack "
        "with tied embeddings, a language model (model.decoder_layers layers of self-attention "
        "and FFN; no encoder keys)",
        {"encoder_decoder", "decoder_only"});
  model("d_model", F::Int, &M::d_model, "hidden width d").range = kPositive;
  model("heads", F::Int, &M::heads, "attention heads (must divide d_model)").range = kPositive;
  model("d_ff", F::Int, &M::d_ff, "FFN inner width").range = kPositive;
  model("encoder_layers", F::Int, &M::encoder_layers, "encoder layers N (2N sub-layers)").range =
      kPositive;
  model("decoder_layers", F::Int, &M::decoder_layers, "decoder layers M (3M sub-layers)").range =
      kPositive;
  model("dropout", F::Double, &M::dropout, "dropout on embeddings and on each branch").range =
      kProbability;
  model("attention_dropout", F::Double, &M::attention_dropout, "dropout on attention weights")
      .range = kProbability;
  model("activation_dropout", F::Double, &M::activation_dropout, "dropout after the FFN ReLU")
      .range = kProbability;
  model("norm", F::String, &M::norm,
        "layer-norm placement, by registry name (methods.md s2; `fathom config --methods`)");
  model("decoder_norm", F::String, &M::decoder_norm,
        "the decoder stack's layer-norm placement where it differs from model.norm, e.g. the "
        "Admin paper's table 1 hybrid: norm post, decoder_norm pre (empty: model.norm); "
        "encoder-decoder models, LayerNorm placements, an init without a style of its own");
  model("init", F::String, &M::init, "initialization, by registry name (methods.md s3)");
  model("connection", F::String, &M::connection, "sub-layer connection, by registry name");
  model("tie_decoder_embeddings", F::Bool, &M::tie_decoder_embeddings,
        "decoder input embedding is the output projection");
  model("share_embeddings", F::Bool, &M::share_embeddings,
        "one embedding for source and target (joint vocabulary)");
  model("embedding_init", F::String, &M::embedding_init,
        "method: embeddings (and an untied output projection) as model.init draws them; normal: "
        "N(0, d^-1/2) whatever model.init is (token std 1 after the sqrt(d) scale), the ablation "
        "of an init's embedding rule",
        {"method", "normal"});
  model("fused_attention", F::String, &M::fused_attention,
        "auto: the fastest measured: on the CPU in float32/64 Fathom's own attention loop "
        "(core/model/cpu_attention.h; on LibTorch >= 2.0 up to 32 dimensions a head), else "
        "LibTorch >= 2.0's fused scaled_dot_product_attention, but the explicit softmax under "
        "bf16 on the CPU; on: the fused call (LibTorch 1.x: the loop) wherever it applies; off: "
        "the explicit softmax, a tensor operation at a time (what an observer of the "
        "probabilities always gets)",
        {"auto", "on", "off"});
  model("qk_norm", F::Bool, &M::qk_norm,
        "QK-LayerNorm: a LayerNorm over each head's queries and keys before their dot product, "
        "bounding the attention logits (Dehghani et al. 2023; Wortsman et al. 2023)");
  model("attention_gate", F::String, &M::attention_gate,
        "gated attention: each head's output times sigmoid(X W + b), X the attention input, "
        "before the output projection; one gate per head (headwise) or per feature "
        "(elementwise) (Qiu et al. 2025, arXiv 2505.06708)",
        {"none", "headwise", "elementwise"});
  model("parameterization", F::String, &M::parameterization,
        "depth-wise parameterization: standard (none); depth_mup: residual branches, in-stack "
        "learning rates and Adam eps times (L/L_base)^-1/2 (Yang et al. 2023, Bordelon et al. "
        "2024); completep: branches and Adam eps times L_base/L, learning rates unchanged (Dey "
        "et al. 2025, arXiv 2505.01618); Pre-LN residual stacks with init xavier",
        {"standard", "depth_mup", "completep"});
  model("base_depth", F::Int, &M::base_depth,
        "parameterization: L_base, the layers per stack the base learning rate was tuned at")
      .range = kPositive;
  model("hc_streams", F::Int, &M::hc_streams,
        "connection hyper or mhc: n, the residual streams (Zhu et al. 2024 use 4); 0 with any "
        "other connection (a sweep over connections zips the two: connection [residual, "
        "hyper], hc_streams [0, 4])")
      .range = kNonNegative;
  model("sigma_reparam", F::Bool, &M::sigma_reparam,
        "sigma-Reparam: every linear layer computes with (gamma / sigma(W)) W, sigma the spectral "
        "norm by one power iteration per update, gamma learned (Zhai et al. 2023); not with "
        "train.checkpoint_activations");
  model("ds_init_alpha", F::Double, &M::ds_init_alpha,
        "ds_init: Glorot bound times alpha / sqrt(layer) (Zhang et al. 2019)");
  model("mix_ln_alpha", F::Double, &M::mix_ln_alpha,
        "norm mix: Post-LN in the first floor(alpha * L) layers of each stack, Pre-LN in the "
        "rest (Li et al. 2024, arXiv 2412.13795)")
      .range = kUnitInterval;
  model("dyt_alpha", F::Double, &M::dyt_alpha,
        "norm dyt: initial value of each DyT's learnable scalar alpha in gamma * tanh(alpha x) + "
        "beta (Zhu et al. 2025, arXiv 2503.10622)")
      .range = kPositive;

  auto model_sub = [&](std::string key, std::function<std::string*(M&)> member, std::string doc,
                       std::vector<std::string> choices = {}) {
    f.push_back(FieldSpec{"model." + key,
                          F::String,
                          std::move(doc),
                          std::move(choices),
                          {},
                          [member](RunConfig& c) -> void* { return member(c.model); }});
  };
  model_sub("lstm.hidden", [](M& m) { return &m.lstm.hidden; },
            "depthwise_lstm: hidden computation, ffn (eq. 8) or lstm (eq. 6)", {"ffn", "lstm"});
  model_sub("lstm.merge", [](M& m) { return &m.lstm.merge; },
            "depthwise_lstm decoder: merge attention outputs by add or concat", {"add", "concat"});
  model_sub("lstm.share", [](M& m) { return &m.lstm.share; },
            "depthwise_lstm: parameters shared across a stack's layers", {"gates", "all", "none"});
  model_sub(
      "admin.profile", [](M& m) { return &m.admin.profile; },
      "admin: reuse a stored profile (run id) or a JSON file; empty: profile the first batch");

  auto data = [&](std::string key, F type, auto D::*member, std::string doc,
                  std::vector<std::string> choices = {}) -> FieldSpec& {
    f.push_back(field("data." + key, type, &RunConfig::data, member, doc, choices));
    return f.back();
  };
  data("task", F::String, &D::task,
       "parallel text files, the built-in synthetic task (a decoder-only model reads each pair "
       "as one sequence, source then target), or lm: language-model text for model.arch "
       "decoder_only",
       {"parallel", "synthetic", "lm"});
  data("train_source", F::Path, &D::train_source, "training source text (plain or .gz)");
  data("train_target", F::Path, &D::train_target, "training target text, line-aligned");
  data("valid_source", F::Path, &D::valid_source, "validation source text");
  data("valid_target", F::Path, &D::valid_target, "validation target text");
  data("test_source", F::Path, &D::test_source, "test source text");
  data("test_target", F::Path, &D::test_target, "test target text (BLEU reference)");
  data("train_text", F::Path, &D::train_text,
       "lm: training text, one document per line (plain or .gz, UTF-8)");
  data("valid_text", F::Path, &D::valid_text, "lm: validation text");
  data("test_text", F::Path, &D::test_text, "lm: test text");
  data("lm_block", F::Int, &D::lm_block,
       "lm: 0 = one example per document (line); K = the documents joined, each ended by eos, "
       "cut into blocks of K tokens")
      .range = kNonNegative;
  data("max_tokens", F::Int, &D::max_tokens, "token budget per batch (rows x padded length)")
      .range = kPositive;
  data("max_len", F::Int, &D::max_len, "drop training pairs longer than this (subwords)").range =
      kPositive;
  data("pad_to_multiple", F::Int, &D::pad_to_multiple,
       "training batches' source and target lengths padded up to a multiple of this (masked "
       "like any padding; the budget counts it): few distinct batch shapes for "
       "train.cuda_graphs, tensor-core-friendly lengths; 1 = no extra padding "
       "(core/data/batch_plan.h)")
      .range = kPositive;

  auto sub = [&](std::string key, F type, auto member_of_run, std::string doc,
                 std::vector<std::string> choices = {}) -> FieldSpec& {
    f.push_back(
        FieldSpec{std::move(key), type, std::move(doc), std::move(choices), {}, member_of_run});
    return f.back();
  };
  sub("data.vocab.type", F::String, [](RunConfig& c) -> void* { return &c.data.vocab.type; },
      "SentencePiece model type", {"bpe", "unigram"});
  sub(
      "data.vocab.size", F::Int, [](RunConfig& c) -> void* { return &c.data.vocab.size; },
      "joint vocabulary size");
  sub(
      "data.synthetic.vocab", F::Int, [](RunConfig& c) -> void* { return &c.data.synthetic.vocab; },
      "content symbols")
      .range = kPositive;
  sub(
      "data.synthetic.min_len", F::Int,
      [](RunConfig& c) -> void* { return &c.data.synthetic.min_len; }, "shortest sentence")
      .range = kPositive;
  sub(
      "data.synthetic.max_len", F::Int,
      [](RunConfig& c) -> void* { return &c.data.synthetic.max_len; }, "longest sentence");
  sub(
      "data.synthetic.train_size", F::Int,
      [](RunConfig& c) -> void* { return &c.data.synthetic.train_size; }, "training pairs")
      .range = kPositive;
  sub(
      "data.synthetic.valid_size", F::Int,
      [](RunConfig& c) -> void* { return &c.data.synthetic.valid_size; }, "validation pairs");
  sub(
      "data.synthetic.test_size", F::Int,
      [](RunConfig& c) -> void* { return &c.data.synthetic.test_size; }, "test pairs");
  sub(
      "data.synthetic.seed", F::UInt, [](RunConfig& c) -> void* { return &c.data.synthetic.seed; },
      "the task's seed");

  auto train = [&](std::string key, F type, auto T::*member, std::string doc,
                   std::vector<std::string> choices = {}) -> FieldSpec& {
    f.push_back(field("train." + key, type, &RunConfig::train, member, doc, choices));
    return f.back();
  };
  train("optimizer", F::String, &T::optimizer,
        "Adam, RAdam (Liu et al. 2019), or muon: the hidden layers' weight matrices (attention "
        "and FFN projections; packed Q, K, V as three) by Muon -- Nesterov momentum "
        "orthogonalized by 5 Newton-Schulz steps, scaled by 0.2 sqrt(max(rows, cols)) to "
        "AdamW's update RMS so both share train.lr and weight_decay (Jordan et al. 2024; Liu "
        "et al. 2025, arXiv 2502.16982) -- and Adam for embeddings, norms, biases and the rest; "
        "or sgd: heavy-ball momentum beta1 as PyTorch's SGD, m <- beta1 m + g, W <- W - lr m, "
        "one rate for every coordinate (Zhang et al. 2024, arXiv 2402.16788)",
        {"adam", "radam", "muon", "sgd"});
  train("lr", F::Double, &T::lr, "peak learning rate").range = kPositive;
  train("betas", F::DoublePair, &T::betas,
        "Adam betas [beta1, beta2] (sgd: beta1 is the momentum, beta2 unused)");
  train("muon_momentum", F::Double, &T::muon_momentum,
        "muon: the momentum mu of the Muon-updated matrices (Nesterov)")
      .range = kProbability;
  train("eps", F::Double, &T::eps, "Adam epsilon").range = kPositive;
  train("weight_decay", F::Double, &T::weight_decay, "decoupled weight decay").range = kNonNegative;
  train("schedule", F::String, &T::schedule,
        "learning-rate schedule after the warmup: " + lr_schedule_reference(), lr_schedule_names());
  train("warmup", F::Int, &T::warmup,
        "linear warmup updates of every schedule: update u <= warmup runs at train.lr * u / "
        "warmup (inverse_sqrt with 0: a constant train.lr)")
      .range = kNonNegative;
  train("min_lr_ratio", F::Double, &T::min_lr_ratio,
        "linear, cosine, wsd: the rate the decay reaches at the last update, as a fraction of "
        "train.lr")
      .range = kUnitInterval;
  train("decay_fraction", F::Double, &T::decay_fraction,
        "wsd: the share of train.max_updates at the end that decays (the last "
        "round(fraction x max_updates) updates)")
      .range = Range{0, 1, true, false};
  train("decay_shape", F::String, &T::decay_shape,
        "wsd: how the last updates decay, with p from 0 to 1 over them: linear (1 - p), cosine "
        "((1 + cos(pi p)) / 2) or sqrt (1 - sqrt(p), Hagele et al. 2024, arXiv 2405.18392)",
        {"linear", "cosine", "sqrt"});
  train("max_updates", F::Int, &T::max_updates, "number of updates").range = kPositive;
  train("label_smoothing", F::Double, &T::label_smoothing, "label smoothing epsilon").range =
      kProbability;
  train("update_tokens", F::Int, &T::update_tokens,
        "accumulate gradients up to this many target tokens per update (0: one batch)")
      .range = kNonNegative;
  train("clip_norm", F::Double, &T::clip_norm, "clip the global gradient norm (0: off)").range =
      kNonNegative;
  train("seed", F::UInt, &T::seed, "seed of parameters, dropout and batch order");
  train("valid_every", F::Int, &T::valid_every,
        "validate and checkpoint every K updates (and validate once before the first update: "
        "the loss at initialization, logged at update 0)")
      .range = kPositive;
  train("valid_at", F::StringList, &T::valid_at,
        "budgets a run also validates just inside, compute=FLOPS, tokens=N or update=N: after "
        "the last update that stays inside each (validation loss and perplexity only; no "
        "checkpoint, train.patience does not count it), so that `--at` reads every run of a "
        "comparison there, not at its validation before (docs/sweeps.md, Compare at a budget)");
  train("valid_every_flops", F::Double, &T::valid_every_flops,
        "also validate just inside every multiple of this many training FLOPs, as "
        "train.valid_at does one budget (0: off): the validation curves of models of unequal "
        "cost then share their compute points, so that any multiple is a budget every run is "
        "read at (`--at compute=K*F`) and an isoFLOP comparison of any of them needs no "
        "retraining")
      .range = kNonNegative;
  train("valid_samples", F::Int, &T::valid_samples,
        "at each validation, translate the first K validation pairs greedily and store them "
        "(source, reference, hypothesis) as the run tag samples.u<update> (0: none)")
      .range = kNonNegative;
  train("valid_bleu", F::Int, &T::valid_bleu,
        "at each validation, decode the first K validation sentences as the test set is decoded "
        "at the end (eval.beam, eval.length_penalty, eval.max_len_a/b) and log their corpus "
        "BLEU as valid_bleu: a BLEU curve to compare and select on without touching the test set "
        "(0: none; a translation model only)")
      .range = kNonNegative;
  train("patience", F::Int, &T::patience,
        "early stopping: end training once K validations in a row have not bettered the best "
        "train.best_metric (the rule checkpoint_best follows), before train.max_updates; the run "
        "finishes as at its last update (final evaluation on checkpoint_best, or the average "
        "eval.average_checkpoints asks for), and the run tag early_stop says when and why. Decided "
        "on validation data only. 0: train to "
        "train.max_updates (what a comparison of methods at one budget needs)")
      .range = kNonNegative;
  train("patience_min_delta", F::Double, &T::patience_min_delta,
        "early stopping's least improvement, in train.best_metric's units (nats of valid_loss, "
        "BLEU points of valid_bleu): a validation restarts train.patience's count only when it "
        "betters the last such improvement by more than this, so a plateau's creep at the size "
        "of rounding (~1e-4 nats) does not decide where the run stops; checkpoint_best still "
        "keeps the best. 0: any improvement")
      .range = kNonNegative;
  train("best_metric", F::String, &T::best_metric,
        "the validation metric checkpoint_best keeps the best of (and so the model the final "
        "evaluation measures, unless eval.average_checkpoints) and train.patience watches: "
        "valid_loss (the lowest) or valid_bleu "
        "(the highest; needs train.valid_bleu, a translation model) -- selecting on what is "
        "reported, measured on validation sentences, at the price of a decode per validation "
        "and a noisier curve (methods.md s1)",
        {"valid_loss", "valid_bleu"});
  train("valid_sample_top_k", F::Int, &T::valid_sample_top_k,
        "a language model's samples (model.arch: decoder_only): besides the greedy continuation, "
        "one drawn from the K most likely tokens at each step, seeded by train.seed and the "
        "update (0: greedy only)")
      .range = kNonNegative;
  train("log_every", F::Int, &T::log_every, "store training metrics every K updates").range =
      kPositive;
  train("grad_norm_every", F::Int, &T::grad_norm_every,
        "store per-layer parameter-gradient norms gradnorm.<layer> every K updates (0: off; "
        "methods.md s5.3)")
      .range = kNonNegative;
  train("noise_scale", F::Bool, &T::noise_scale,
        "log the gradient noise scale B_simple = tr(Sigma) / G^2 in target tokens at each log "
        "point (noise.b_simple and its interval, noise.trace, noise.grad_sq), from each of an "
        "update's batches against the whole update (on every rank of a data-parallel run) -- a "
        "norm and a copy over the gradients per batch, one gradient-sized buffer; needs updates "
        "of several batches "
        "(train.update_tokens above data.max_tokens) or train.processes > 1 (methods.md s5.12)");
  train("keep_checkpoint_every", F::Int, &T::keep_checkpoint_every,
        "also keep the model at every K-th update as checkpoint_<update>.pt, for analyses over "
        "training (`--checkpoint STEP`; 0: off)")
      .range = kNonNegative;
  train("keep_checkpoints", F::Int, &T::keep_checkpoints,
        "of the checkpoints train.keep_checkpoint_every keeps, only the newest N stay: an older "
        "one's file and row go when a new one is recorded (0: every one stays; `fathom prune` "
        "does the same to finished runs); with eval.average_by best, the N best by "
        "train.best_metric stay, and one worse than all of them is not written")
      .range = kNonNegative;
  train("keep_checkpoint_optimizer", F::Bool, &T::keep_checkpoint_optimizer,
        "kept checkpoints also hold the optimizer state, so that `fathom train --from RUN@STEP` "
        "can fork from them; false: the model alone, about a third of the file under Adam "
        "(analyses, `--checkpoint STEP` and checkpoint averaging need no more)");
  train("z_loss", F::Double, &T::z_loss,
        "coefficient of the auxiliary z-loss, z_loss * mean over target tokens of (log Z)^2, "
        "log Z the logsumexp of the output logits (PaLM; Wortsman et al. 2023 use 1e-4; 0: off)")
      .range = kNonNegative;
  train("probe_every", F::Int, &T::probe_every,
        "record the training probes (per layer and head: attention logits and entropy, stream "
        "and branch RMS, update/weight ratios; log Z and the relative output change) every K "
        "updates on a fixed validation batch (0: off; docs/probes.md)")
      .range = kNonNegative;
  train("probe_sentences", F::Int, &T::probe_sentences,
        "validation pairs in the probes' fixed batch (the first K of the validation set)")
      .range = kPositive;
  train("sharpness_every", F::Int, &T::sharpness_every,
        "record the training loss's sharpness every K updates: the top Hessian eigenvalue and, "
        "under Adam, that of the preconditioned Hessian with the adaptive edge-of-stability ratio "
        "(0: off; docs/curvature.md)")
      .range = kNonNegative;
  train("sharpness_sentences", F::Int, &T::sharpness_sentences,
        "training pairs in the sharpness's fixed batch (the first K of the training set)")
      .range = kPositive;
  train("sharpness_iterations", F::Int, &T::sharpness_iterations,
        "most Lanczos steps (Hessian-vector products) per eigenvalue at a sharpness point; it "
        "stops earlier once the largest eigenvalue's residual is under 1e-3 of it")
      .range = kPositive;
  train("divergence_factor", F::Double, &T::divergence_factor,
        "diverged when loss exceeds this multiple of the first loss (0: off)")
      .range = kNonNegative;
  train("threads", F::Int, &T::threads,
        "CPU threads of each of the run's processes (0: the usable cores -- the affinity "
        "mask's, within a cgroup CPU quota -- shared among its train.processes; a sweep gives "
        "each worker cores / jobs; core/train/threads.h)")
      .range = kNonNegative;
  train("precision", F::String, &T::precision,
        "forward under autocast: fp32 (off), bf16, or fp16 with dynamic loss scaling (CUDA "
        "only); loss, LayerNorm and softmax stay fp32 (docs/performance.md); tf32: no autocast, "
        "float32 throughout, the matrix products on tensor cores in TF32 (CUDA only)",
        {"fp32", "bf16", "fp16", "tf32"});
  train("checkpoint_activations", F::Bool, &T::checkpoint_activations,
        "recompute each encoder/decoder layer in backward instead of storing its activations "
        "(every connection: residual, hyper-connections, depth-wise LSTM; less memory, ~1 more "
        "forward)");
  train("cuda_graphs", F::Bool, &T::cuda_graphs,
        "replay each batch's forward, loss and backward as a CUDA graph, one per batch shape, "
        "captured when the shape is first met (launches without the host's per-operator cost; "
        "core/train/graphed_updates.h); CUDA only, not with fp16, checkpoint_activations or "
        "processes > 1; a stop request then waits for the update's end");
  train("processes", F::Int, &T::processes,
        "data-parallel processes of one run: each trains its share of every update's batches, "
        "the gradients summed over them (Gloo or NCCL, train.reduce_backend; `fathom train --nproc "
        "N`, docs/distributed.md); "
        "the update is the one a single process makes, so it may change on --resume")
      .range = kPositive;
  train("rank_timeout_s", F::Int, &T::rank_timeout_s,
        "seconds a data-parallel rank waits for the others in a collective before it ends the "
        "run (a rank that hung; rank 0's validation must fit in it)")
      .range = kPositive;
  train("reduce_overlap", F::Bool, &T::reduce_overlap,
        "data-parallel: start each gradient bucket's all-reduce in the backward of a rank's last "
        "batch, once its gradients are final (false: every bucket after the backward); the sums "
        "are the same either way (docs/distributed.md)");
  train("reduce_bucket_kb", F::Int, &T::reduce_bucket_kb,
        "data-parallel: the most gradient one all-reduce carries, in KiB (smaller buckets start "
        "earlier in the backward, at more reductions per update)")
      .range = kPositive;
  train("reduce_backend", F::String, &T::reduce_backend,
        "data-parallel: what sums the gradients -- auto (NCCL for GPU ranks where LibTorch has "
        "it, else Gloo), gloo, or nccl (GPU ranks only); gloo or nccl also give a run of one "
        "process a one-rank group, to check that path against the plain run "
        "(docs/distributed.md)",
        {"auto", "gloo", "nccl"});

  auto eval = [&](std::string key, F type, auto E::*member, std::string doc,
                  std::vector<std::string> choices = {}) -> FieldSpec& {
    f.push_back(field("eval." + key, type, &RunConfig::eval, member, doc, choices));
    return f.back();
  };
  eval("beam", F::Int, &E::beam, "beam size (1: greedy)").range = kPositive;
  eval("length_penalty", F::Double, &E::length_penalty, "beam score / length^penalty");
  eval("max_len_a", F::Double, &E::max_len_a,
       "max output length = a * source length + b (the decode batch's longest source, as "
       "fairseq)");
  eval("max_len_b", F::Int, &E::max_len_b, "see max_len_a");
  eval("max_sentences", F::Int, &E::max_sentences,
       "decode only the first K test sentences (0: all)")
      .range = kNonNegative;
  eval("average_checkpoints", F::Int, &E::average_checkpoints,
       "evaluate at the end (valid and test metrics, test BLEU) the mean of the weights of the "
       "last N checkpoints kept by train.keep_checkpoint_every, as the seed papers do before "
       "inference (Admin: 10, Xu et al.: 5), recorded as checkpoint_average (0: the "
       "checkpoint of the best validation loss)")
      .range = kNonNegative;
  eval("average_by", F::String, &E::average_by,
       "which kept checkpoints eval.average_checkpoints averages: last (the newest N) or best "
       "(the N whose update's train.best_metric is best, as ESPnet averages the best by "
       "validation; chosen on validation data, never on the test metric reported). best needs "
       "a validation at every kept checkpoint (train.keep_checkpoint_every a multiple of "
       "train.valid_every); train.keep_checkpoints then keeps the best, not the newest",
       {"last", "best"});

  // Alerts (experiments/notify.h): what the scheduler runs on a run's events.
  auto notify = [&](std::string key, F type, auto NotifyConfig::*member, std::string doc,
                    std::vector<std::string> choices = {}) -> FieldSpec& {
    f.push_back(field("notify." + key, type, &RunConfig::notify, member, doc, choices));
    return f.back();
  };
  notify("on", F::StringList, &NotifyConfig::on,
         "the events that run notify.command, each once per run (recorded in the store): a run "
         "diverged, failed, crashed, stalled (no new metric for notify.stalled_after_s while "
         "running), finished; sweep_finished once per sweep (docs/sweeps.md, Alerts)",
         {"diverged", "failed", "crashed", "stalled", "finished", "sweep_finished"});
  notify("command", F::String, &NotifyConfig::command,
         "shell command (/bin/sh -c) run on those events, with FATHOM_EVENT, FATHOM_RUN_ID, "
         "FATHOM_RUN_NAME, FATHOM_STATUS, FATHOM_SWEEP, FATHOM_METRIC, FATHOM_METRIC_VALUE set; "
         "never waited for by training or the scheduler");
  notify("stalled_after_s", F::Double, &NotifyConfig::stalled_after_s,
         "a running run is stalled when no metric row arrived for this many seconds")
      .range = kPositive;
  notify("timeout_s", F::Double, &NotifyConfig::timeout_s,
         "notify.command is killed (and the failure logged) after this many seconds")
      .range = kPositive;
  return f;
}

const char* type_name(FieldType type) {
  switch (type) {
    case FieldType::Int:
      return "int";
    case FieldType::UInt:
      return "uint";
    case FieldType::Double:
      return "float";
    case FieldType::Bool:
      return "bool";
    case FieldType::String:
      return "string";
    case FieldType::Path:
      return "path";
    case FieldType::DoublePair:
      return "[float, float]";
    case FieldType::StringList:
      return "[string, ...]";
  }
  return "?";
}

}  // namespace

bool Range::contains(double v) const {
  return (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max);
}

std::string Range::text() const {
  if (max >= 1e308) return std::string(min_open ? "> " : ">= ") + double_text(min);
  if (min <= -1e308) return std::string(max_open ? "< " : "<= ") + double_text(max);
  return std::string("in ") + (min_open ? "(" : "[") + double_text(min) + ", " + double_text(max) +
         (max_open ? ")" : "]");
}

double numeric_value(const RunConfig& config, const FieldSpec& field) {
  void* p = field.member(const_cast<RunConfig&>(config));
  switch (field.type) {
    case FieldType::Int:
      return *static_cast<int*>(p);
    case FieldType::UInt:
      return static_cast<double>(*static_cast<std::uint64_t*>(p));
    case FieldType::Double:
      return *static_cast<double*>(p);
    default:
      return 0;
  }
}

std::string double_text(double v) {
  // The shortest of 15..17 significant digits that reads back as exactly v: 0.1 stays "0.1",
  // 0.1 + 0.2 needs all 17. (A fixed 10 digits lost values: YAML written for a run did not
  // read back as the same config, so a resumed run trained with different numbers.)
  std::string text;
  for (int precision = 15; precision <= 17; ++precision) {
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out.precision(precision);
    out << v;
    text = out.str();
    std::istringstream back(text);
    back.imbue(std::locale::classic());
    double parsed = 0;
    if ((back >> parsed) && parsed == v) break;
  }
  return text;
}

const std::vector<FieldSpec>& config_fields() {
  static const std::vector<FieldSpec> fields = build_fields();
  return fields;
}

const FieldSpec* find_field(const std::string& key) {
  for (const auto& f : config_fields())
    if (f.key == key) return &f;
  return nullptr;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  for (const auto& f : config_fields()) keys.push_back(f.key);
  return keys;
}

std::string field_value_text(const RunConfig& config, const FieldSpec& field) {
  void* p = field.member(const_cast<RunConfig&>(config));
  switch (field.type) {
    case FieldType::Int:
      return std::to_string(*static_cast<int*>(p));
    case FieldType::UInt:
      return std::to_string(*static_cast<std::uint64_t*>(p));
    case FieldType::Double:
      return double_text(*static_cast<double*>(p));
    case FieldType::Bool:
      return *static_cast<bool*>(p) ? "true" : "false";
    case FieldType::String:
    case FieldType::Path:
      return *static_cast<std::string*>(p);
    case FieldType::DoublePair: {
      const auto& pair = *static_cast<std::array<double, 2>*>(p);
      return "[" + double_text(pair[0]) + ", " + double_text(pair[1]) + "]";
    }
    case FieldType::StringList: {
      std::string out;
      for (const auto& item : *static_cast<std::vector<std::string>*>(p))
        out += (out.empty() ? "" : ", ") + item;
      return "[" + out + "]";
    }
  }
  return "";
}

std::string config_reference_markdown() {
  const RunConfig defaults;
  std::string out = "| key | type | default | meaning |\n| --- | --- | --- | --- |\n";
  for (const auto& f : config_fields()) {
    std::string meaning = f.doc;
    if (f.range.limited()) meaning += " (" + f.range.text() + ")";
    if (!f.choices.empty()) {
      meaning += " (";
      for (size_t i = 0; i < f.choices.size(); ++i) meaning += (i ? " \\| " : "") + f.choices[i];
      meaning += ")";
    }
    std::string value = field_value_text(defaults, f);
    out += "| `" + f.key + "` | " + type_name(f.type) + " | " +
           (value.empty() ? "" : "`" + value + "`") + " | " + meaning + " |\n";
  }
  return out;
}

}  // namespace fathom
