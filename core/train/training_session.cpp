#include "core/train/training_session.h"

#include <cstdio>

#include <cmath>
#include <limits>

#include "base/config/config_io.h"
#include "base/config/lr_schedule.h"
#include "base/util/blas_setup.h"
#include "base/util/file_write.h"
#include "base/util/process.h"
#include "base/util/version.h"
#include "core/model/depth_parameterization.h"
#include "core/model/registry.h"
#include "core/model/stop_point.h"
#include "core/train/device.h"
#include "core/train/grad_clip.h"
#include "core/train/layer_grad_norms.h"
#include "core/train/loss.h"
#include "core/train/objective.h"
#include "core/train/prepared_state.h"
#include "core/train/rank_group.h"
#include "core/train/resume_point.h"
#include "core/train/stop_request.h"
#include "core/train/training_steps.h"
#include "core/train/valid_samples.h"
#include "db/early_stop_tag.h"
#include "db/metric_names.h"
#include "db/run_status.h"

namespace fathom {
TrainingSession::TrainingSession(const RunConfig& config, db::Store* store,
                                 const TrainOptions& options)
    : config_(config),
      tc_(config.train),
      best_metric_(best_metric_named(config.train.best_metric)),
      store_(store),
      options_(options),
      run_(options.run_id),
      device_(rank_device(resolve_device(config.device), options.ranks ? options.ranks->rank() : 0,
                          options.ranks ? options.ranks->world() : 1)),
      precision_(plan_precision(config, device_)),  // refuses before any work
      lease_(options.lease) {
  if (tc_.cuda_graphs && !device_.is_cuda())  // device: auto found no GPU (cpu: a config error)
    throw std::invalid_argument("train.cuda_graphs: needs a CUDA device; this run's is " +
                                device_.str());
}

int TrainingSession::rank() const { return options_.ranks ? options_.ranks->rank() : 0; }

// The final evaluation's share, on the model rank 0 evaluates (its best by validation loss);
// rank 0 scores and records it.
TrainOutcome TrainingSession::follower_done() {
  TrainOutcome done;
  done.updates = state_.update;
  RankGroup& ranks = *options_.ranks;
  load_checkpoint_bytes(ranks.fetch("final/model", std::chrono::seconds(tc_.rank_timeout_s)),
                        "rank 0's final model", *model_, nullptr, nullptr);
  FinalEvaluationOptions what;
  what.stop = &ranks.stop_flag();
  what.ranks = &ranks;
  try {
    final_evaluation(*model_, *data_, config_, device_, what);
  } catch (const StopRequested& stop) {
    done.status = TrainOutcome::kStopped;
    done.stopped_during = stop.what();
    done.reason = std::string("stop requested during ") + stop.what();
    return done;
  }
  done.status = db::status::kFinished;
  return done;
}

// The run's holder (db/lease.h): every write below is fenced by the lease. A worker holds the
// run from its launcher's claim; otherwise the run is taken here -- a resumed one only once
// its checkpoint has loaded (resume()), so an unreadable one leaves the run as it was (a
// finished run stays finished, with its times).
void TrainingSession::hold_unless_resuming() {
  if (lease_) beat();  // alive from the claim on, also while the data loads
  if (!options_.resume) hold();
}

// Between these phases a stop request ends the session (core/train/stop_request.h); so does a
// lost lease, which the heartbeat thread learns of. The outcome of such a stop: nothing
// trained in this session, the resume point is the one the run had.
std::optional<TrainOutcome> TrainingSession::stopped_before(const char* next) {
  try {
    between_phases(next);
  } catch (const StopRequested& stop) {
    return stopped_before_training(store_, run_, stop.what());
  }
  return std::nullopt;
}

// Loading may prepare the corpus (minutes on a large one): a stop request ends it between
// chunks, the chunks done kept for the next session.
std::optional<TrainOutcome> TrainingSession::load_data() {
  PrepareOptions prepare;
  prepare.progress = options_.progress;
  prepare.stop = options_.stop_requested;
  try {
    data_.emplace(load_located(config_, options_.cache_dir, prepare));
  } catch (const StopRequested& stop) {
    return stopped_before_training(store_, run_, stop.what());
  }
  if (data_->train.empty())
    config_error(config_, "data.train_source", "no training pairs left after filtering");
  if (tc_.probe_every > 0 && data_->valid.empty())
    config_error(config_, "train.probe_every", "the probes read validation pairs; there are none");
  if (tc_.probe_every > 0 && static_cast<size_t>(tc_.probe_sentences) > data_->valid.size())
    config_error(config_, "train.probe_sentences",
                 std::to_string(tc_.probe_sentences) + " probe pairs, but the validation set has " +
                     std::to_string(data_->valid.size()));
  if (tc_.sharpness_every > 0 && static_cast<size_t>(tc_.sharpness_sentences) > data_->train.size())
    config_error(config_, "train.sharpness_sentences",
                 std::to_string(tc_.sharpness_sentences) +
                     " pairs for the sharpness, but the training set has " +
                     std::to_string(data_->train.size()));
  return std::nullopt;
}

void TrainingSession::build_model() {
  model_ = fathom::build_model(config_, data_->vocab->size(), tc_.seed);
  model_->to(device_);
  for (const auto& p : model_->named_parameters()) {
    named_.emplace_back(p.key(), p.value());
    parameters_.push_back(p.value());
  }
  optimizer_.emplace(parameter_groups(*model_, config_.model), tc_,  // model.parameterization
                     Optimizer::matrices_for(tc_, model_->catalog()));
  config_yaml_ = config_to_yaml(config_);
}

// A resumed run: its checkpoint (or the one before an unreadable one) restores the model,
// the optimizer and the trainer state; the metric rows after it are deleted (redone, never
// duplicated). Then the run's tags, and a fresh run's data-dependent initialization.
void TrainingSession::resume() {
  if (!writes()) {
    plan_ = plan_batches(data_->train, config_.data.max_tokens, config_.data.pad_to_multiple);
    receive_state();
    return;
  }
  if (options_.resume) {
    const auto [last, previous] = recorded_resume_points(*store_, run_, options_.artifacts_dir);
    restored_from_ = load_resume_point(last, previous, *model_, *optimizer_, state_);
    hold();
  }
  const bool restored = !restored_from_.empty();
  files_.emplace(*store_, *lease_, options_.artifacts_dir);
  if (options_.resume) {
    // Points past the checkpoint (all of them when there is none) are redone.
    store_->delete_metrics_after(*lease_, state_.update);
    // Resumed from the one before an unreadable last: that one is the resume point now.
    if (restored && restored_from_ != files_->current("checkpoint_last"))
      files_->adopt("checkpoint_last", restored_from_, state_.update);
    files_->remove_strays();
  }
  // The best train.best_metric refers to the recorded checkpoint_best; a run without one (a
  // fork whose parent's best as of the fork point is on disk no more: core/train/fork.h)
  // records its own at its next validation, and its train.patience counts from there.
  if (files_->current("checkpoint_best").empty()) state_.validation = ValidationRecord();
  store_->set_tag(*lease_, "vocab", data_->vocab->describe());
  // The loss of a uniform prediction is ln V: what learning-rate sensitivity caps at.
  store_->set_tag(*lease_, "vocab.size", std::to_string(data_->vocab->size()));
  store_->set_tag(*lease_, "data", data_->description);
  // OpenBLAS picks its kernels by the CPU (or OPENBLAS_CORETYPE), and the kernels round
  // differently: the same seed gives other numbers on another kind of machine (README).
  // A resume on another kind of machine adds its kernels, from the update it resumed at.
  // The LibTorch version likewise (1.13 and 2.x compute attention and Adam by other paths).
  const auto tags = store_->tags(lease_->run);
  const auto record_stretch = [&](const std::string& key, const std::string& now) {
    const auto recorded = tags.find(key);
    store_->set_tag(*lease_, key,
                    blas_core_history(recorded == tags.end() ? "" : recorded->second, now,
                                      static_cast<long long>(state_.update)));
  };
  if (const std::string core = blas_core_name(); !core.empty()) record_stretch("blas.core", core);
  // Tokens/s depend on them: what each of the run's processes computed on (train.threads, or
  // the cores shared among its processes), by stretch as the kernels.
  record_stretch("threads", threads_in_use());
  record_stretch("libtorch", TORCH_VERSION);
  // Resumed past its early stop (train.patience raised or 0): the tag says it trained on.
  if (db::ended_by_early_stop(tags) && updates_left())
    store_->set_tag(*lease_, db::kEarlyStopTag,
                    db::kTrainedOnPastEarlyStop + std::to_string(state_.update) +
                        " (train.patience " + std::to_string(tc_.patience) + ") after " +
                        tags.at(db::kEarlyStopTag));
  for (const auto& [kind, count] : model_->parameter_counts())
    store_->set_tag(*lease_, "params." + kind, std::to_string(count));

  plan_ = plan_batches(data_->train, config_.data.max_tokens, config_.data.pad_to_multiple);
  // How many tensor shapes the batches take (a CUDA graph each) and what padding they carry.
  plan_shapes_ = batch_shapes(data_->train, plan_);
  store_->set_tag(*lease_, "data.batches",
                  describe_batch_shapes(plan_shapes_, plan_.size(), plan_.pad_multiple));
  if (options_.ranks)
    if (const std::string note =
            rank_balance_note(data_->train, plan_, tc_.update_tokens, options_.ranks->world());
        !note.empty())
      std::fprintf(stderr, "%s\n", note.c_str());
  if (!restored) {
    // Data-dependent initialization (Admin profiling) sees the examples update 1 will train on,
    // without data.pad_to_multiple's columns (they shape tensors, not statistics).
    const Batch first =
        collate(data_->train, BatchStream(data_->train, plan_, tc_.seed, 0, 0).next().ids)
            .to(device_);
    torch::manual_seed(update_seed(tc_.seed, 0));
    const PreparedState prepared =
        prepare_model(*model_, InitContext{config_, first, stored_tag_reader(*store_)});
    keep_prepared_state(*store_, *files_, prepared);
  }
  if (options_.ranks) share_state();
}

// What every rank starts this session from, as a checkpoint's bytes: the model (a fresh run's
// initialization, an Admin run's profiled omega), the optimizer and the trainer state with its
// place in the data. A rank started with another build is refused before it trains.
void TrainingSession::share_state() {
  options_.ranks->publish("build", git_revision());
  options_.ranks->publish("state", checkpoint_bytes(*model_, &*optimizer_, state_, config_yaml_));
}

void TrainingSession::receive_state() {
  const auto wait = std::chrono::hours(24);  // rank 0 may be preparing a large corpus first
  const std::string build = options_.ranks->fetch("build", wait);
  if (build != git_revision())
    throw InputError("fathom", 0, "train.processes",
                     std::string("rank ") + std::to_string(rank()) + " runs build " +
                         git_revision() + " but rank 0 runs build " + build +
                         ": every rank must run the same fathom binary");
  load_checkpoint_bytes(options_.ranks->fetch("state", wait), "rank 0's state", *model_,
                        &*optimizer_, &state_);
}

// The update loop's state, continuing the checkpoint's log window.
void TrainingSession::start_loop() {
  BatchStream batches(data_->train, plan_, tc_.seed, state_.epoch, state_.batch_in_epoch);
  if (options_.ranks)  // a session starts at an update boundary
    batches.collate_only_rank_share(tc_.update_tokens, rank(), options_.ranks->world());
  stream_.emplace(std::move(batches), device_);
  device_metrics_.emplace(device_, tc_.divergence_factor, state_.first_loss);
  device_metrics_->restore_window(state_.window.smoothed, state_.window.nll,
                                  state_.window.grad_norm);
  scaler_.emplace(state_.loss_scale, state_.loss_scale_clean_updates);
  if (tc_.noise_scale) {
    noise_.emplace(parameters_, device_, options_.ranks ? options_.ranks->world() : 1);
    noise_->restore(state_.window.noise);
  }
  if (options_.ranks) {
    reducer_.emplace(
        *options_.ranks, parameters_,
        GradientReducer::Options{int64_t{tc_.reduce_bucket_kb} << 10, tc_.reduce_overlap});
    options_.ranks->relay_stop(options_.stop_requested);
  }
  if (writes()) metrics_.emplace(*store_, *lease_);
  validate_at_init();  // before the clocks start: not training time (every rank: a shared sum)
  const bool patience_ran_out = decode_pending_valid_bleu();
  bar_.emplace("train", tc_.max_updates, options_.progress && writes());
  if (patience_ran_out && writes() && state_.update < tc_.max_updates) stop_early();
  window_.tokens = state_.window.tokens;
  window_.updates = state_.window.updates;
  window_.grad_norm_updates = state_.window.grad_norm_updates;
  window_.skipped = state_.window.skipped;
  window_.start = Clock::now();
  session_first_update_ = state_.update + 1;
  seconds_before_ = state_.train_seconds;
  tokens_before_ = state_.train_tokens;
  flops_before_ = state_.train_flops;
  flop_rates_ = forward_flop_rates(*model_);
  train_start_ = Clock::now();
  model_->train();
  model_->hooks().checkpoint_layers = tc_.checkpoint_activations;
  if (tc_.cuda_graphs) {
    graphs_.emplace(model_, precision_.autocast, tc_.label_smoothing, tc_.z_loss, device_);
    if (writes())  // plan_shapes_ is the writing rank's (resume)
      std::fprintf(stderr, "train.cuda_graphs: %s\n",
                   batch_shapes_note(plan_shapes_, plan_.size(), plan_.pad_multiple).c_str());
  }
  if (tc_.probe_every > 0 && writes()) {
    std::vector<size_t> first(static_cast<size_t>(tc_.probe_sentences));
    for (size_t i = 0; i < first.size(); ++i) first[i] = i;
    probes_.emplace(*model_, collate(data_->valid, first).to(device_), precision_.autocast,
                    TrainingProbes::weight_matrices(named_));
  }
  if (tc_.sharpness_every > 0 && writes()) {
    std::vector<size_t> first(static_cast<size_t>(tc_.sharpness_sentences));
    for (size_t i = 0; i < first.size(); ++i) first[i] = i;
    SharpnessOptions options;
    options.label_smoothing = tc_.label_smoothing;
    options.z_loss = tc_.z_loss;
    options.max_iterations = tc_.sharpness_iterations;
    options.seed = tc_.seed;
    sharpness_.emplace(*model_, collate(data_->train, first).to(device_), options);
  }
}

// A lost lease stops the session, writing nothing. A stop request (preemption, a time
// limit's warning signal) is served at an update boundary: the checkpoint holds exactly the
// updates done, and the caller requeues the run. The ranks of a data-parallel run stop where
// any one of them was asked to (agreed in the last update's reduction), rank 0 saving.
//
// An update abandoned for a stop request (one_update's nullopt) is served here too, as a stop
// before it: its forward and backward were cut short, nothing of it was applied.
std::optional<TrainOutcome> TrainingSession::serve_stop_request(bool abandoned) {
  if (heartbeat_) heartbeat_->throw_if_lost();
  const bool asked = options_.stop_requested && options_.stop_requested->load();
  if (!abandoned && (reducer_ ? !stop_agreed_ : !asked)) return std::nullopt;
  if (writes() && state_.update >= session_first_update_) {  // else the checkpoint is this state
    const auto reading = read_metrics(/*reset_window=*/false);
    if (!reading) return outcome_;
    state_.window = window_state(*reading, /*just_logged=*/window_.updates == 0);
    count_training();
    save_resume_point();
  }
  if (writes()) {
    metrics_->flush();
    store_->heartbeat(*lease_, state_.update);
  }
  bar_->stop(state_.update, "stopped after update " + std::to_string(state_.update) +
                                (abandoned ? " (stop requested during update " +
                                                 std::to_string(state_.update + 1) + ")"
                                           : " (stop requested)"));
  outcome_.status = TrainOutcome::kStopped;
  outcome_.reason = "stop requested after update " + std::to_string(state_.update);
  if (abandoned) outcome_.abandoned_update = state_.update + 1;
  outcome_.updates = state_.update;
  return outcome_;
}

// Forward and backward over batches of at least train.update_tokens target tokens (this rank's
// share of them in a data-parallel run, the gradients then summed over the ranks), the
// gradient's clipping and the optimizer's step. Nothing is read from the device (but for the
// ranks' reduction). A stop request abandons the update at its next layer, forward or backward
// (core/model/stop_point.h): nullopt, nothing of it applied -- in a data-parallel run once
// every rank agreed in the reduction, each rank's layers reading the ranks' shared stop flag.
std::optional<TrainingSession::Update> TrainingSession::one_update() {
  Update u;
  u.number = state_.update + 1;
  torch::manual_seed(rank_update_seed(tc_.seed, u.number, rank()));

  // One update reads batches until it has `update_tokens` target tokens (at least one). Every
  // rank reads them all (the same stream), and trains on its share -- the only ones its stream
  // collates.
  std::vector<Batch> parts;
  UpdateCursor update(tc_.update_tokens);
  while (!update.complete()) {
    parts.push_back(stream_->next());
    update.add(parts.back().tgt_tokens);
    u.flops += training_flops(flop_rates_, parts.back());
  }
  u.tokens = update.tokens;

  const bool probed = probes_ && u.number % tc_.probe_every == 0;
  if (probed) probes_->before_update();
  if (graphs_) graphs_->capture_pending();  // its warm-ups' gradients zeroed next
  optimizer_->zero_grad();
  if (noise_) noise_->begin_update(u.tokens, precision_.loss_scaling ? scaler_->scale_value() : 1);
  torch::Tensor smoothed, nll;
  const bool abandoned = !forward_backward_unless_stopped(parts, u.tokens, smoothed, nll);
  if (abandoned && !reducer_) return std::nullopt;
  if (reducer_) {
    const bool asked = options_.stop_requested && options_.stop_requested->load();
    const GradientReducer::Totals totals = reducer_->reduce(
        smoothed, nll, asked, abandoned, noise_ ? noise_->share_reading() : torch::Tensor());
    if (totals.abandoned) return std::nullopt;  // some rank abandoned it: every rank does
    if (noise_)
      noise_->set_ranks_reading(totals.noise_sq, totals.noise_inverse_tokens,
                                totals.noise_readings);
    stop_agreed_ = totals.stop;
    window_.reduce_seconds += reducer_->last_seconds();
    window_.reduce_overlap_seconds += reducer_->last_overlap_seconds();
    const auto on_device = torch::TensorOptions().dtype(torch::kFloat64).device(device_);
    LossSums sums;
    sums.smoothed = torch::tensor(totals.smoothed, on_device);
    sums.nll = torch::tensor(totals.nll, on_device);
    device_metrics_->add_batch(sums);
  }
  // fp16: a gradient that overflowed skips the update (and the scaler halves its scale).
  const bool skipped = precision_.loss_scaling && scaler_->unscale_and_find_non_finite(parameters_);
  if (precision_.loss_scaling) scaler_->update(skipped);
  const double max_norm =
      tc_.clip_norm > 0 ? tc_.clip_norm : std::numeric_limits<double>::infinity();
  // Per-layer norms before clipping rescales them (methods.md s5.3); a diagnostic that
  // reads from the device at its own points.
  if (metrics_ && tc_.grad_norm_every > 0 && u.number % tc_.grad_norm_every == 0 && !skipped)
    for (const auto& [layer, norm] : layer_grad_norms(named_))
      metrics_->log(u.number, db::metric::kLayerGradNormPrefix + layer, norm);
  if (probed && !skipped) probes_->read_gradients();
  const torch::Tensor grad_norm =
      skipped ? torch::Tensor() : clip_grad_norm_on_device(parameters_, max_norm);
  device_metrics_->end_update(u.number, u.tokens, grad_norm);
  if (noise_ && writes()) noise_->end_update(grad_norm);

  u.lr = learning_rate(tc_, u.number);
  if (!skipped) optimizer_->step(u.lr);
  if (probed) log_probes(u.number);
  if (sharpness_ && u.number % tc_.sharpness_every == 0) log_sharpness(u.number);

  window_.tokens += u.tokens;
  window_.updates += 1;
  window_.grad_norm_updates += skipped ? 0 : 1;
  window_.skipped += skipped ? 1 : 0;
  session_tokens_ += u.tokens;
  session_flops_ += u.flops;
  const double window_rate = window_.tokens / std::max(seconds_since(window_.start), 1e-9);
  bar_->update(u.number, format_training_status(last_logged_loss_, u.lr, window_rate));
  return u;
}

// forward_backward with every layer reading the stop flag -- the ranks' shared one in a
// data-parallel run (RankGroup::stop_flag) -- only while it runs: false when a stop request
// abandoned it (the gradients are then partial; nothing else was changed).
bool TrainingSession::forward_backward_unless_stopped(const std::vector<Batch>& parts,
                                                      int64_t tokens, torch::Tensor& smoothed,
                                                      torch::Tensor& nll) {
  ModelHooks& hooks = model_->hooks();
  hooks.stop = stop_flag();
  bool done = true;
  try {
    std::tie(smoothed, nll) = forward_backward(parts, tokens);
  } catch (const UpdateAbandoned&) {
    done = false;
  }
  hooks.stop = nullptr;
  return done;
}

// One process: every batch, its loss sums into the device metrics as it goes (returns none).
// A rank of a data-parallel run: its share, the sums returned for the ranks' reduction.
std::pair<torch::Tensor, torch::Tensor> TrainingSession::forward_backward(
    const std::vector<Batch>& parts, int64_t tokens) {
  std::vector<size_t> mine(parts.size());
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = i;
  if (options_.ranks) mine = batches_of_rank(parts.size(), rank(), options_.ranks->world());
  torch::Tensor smoothed_sum, nll_sum;
  for (size_t k = 0; k < mine.size(); ++k) {
    const size_t i = mine[k];
    const Batch& batch = parts[i];
    if (graphs_ && !reducer_) {
      if (const std::optional<LossSums> sums = graphs_->replay(batch, tokens)) {
        device_metrics_->add_batch(*sums);
        if (noise_) noise_->after_batch(k, mine.size(), batch.tgt_tokens);
        continue;
      }
    }
    ObjectiveSums step;
    {
      AutocastScope autocast(precision_.autocast);
      step = objective_sums(model_->forward(batch.src, batch.tgt_in), batch.tgt_out,
                            tc_.label_smoothing, tc_.z_loss, /*count_tokens=*/false);
    }
    const LossSums& sums = step.loss;
    const torch::Tensor& objective = step.objective;
    // Gradient of the per-token mean over the whole update (every rank's batches), however it
    // was split.
    torch::Tensor mean = objective / static_cast<double>(tokens);
    // This rank's last backward of the update finishes its gradients: reduce as they finish.
    if (reducer_ && i == mine.back()) reducer_->start_overlap();
    (precision_.loss_scaling ? scaler_->scale(mean) : mean).backward();
    if (noise_) noise_->after_batch(k, mine.size(), batch.tgt_tokens);
    if (!reducer_) {
      device_metrics_->add_batch(sums);
      continue;
    }
    torch::NoGradGuard no_grad;
    const torch::Tensor s = sums.smoothed.detach().to(torch::kFloat64);
    const torch::Tensor n = sums.nll.detach().to(torch::kFloat64);
    smoothed_sum = smoothed_sum.defined() ? smoothed_sum + s : s;
    nll_sum = nll_sum.defined() ? nll_sum + n : n;
  }
  return {smoothed_sum, nll_sum};
}

// What follows update `u` at its points: a read of the device metrics (the end when it
// diverged), the log rows, a kept checkpoint, validation and the resume point -- and a
// validation alone just inside a train.valid_at budget. A rank other than 0 only reads, so
// that it ends where rank 0 finds a divergence.
std::optional<TrainOutcome> TrainingSession::after_update(const Update& u) {
  const bool log_point = u.number % tc_.log_every == 0 || u.number == tc_.max_updates;
  const bool valid_point = u.number % tc_.valid_every == 0 || u.number == tc_.max_updates;
  const bool keep_point =
      tc_.keep_checkpoint_every > 0 && u.number % tc_.keep_checkpoint_every == 0;
  // Every rank decides alike: every rank counts every rank's tokens and FLOPs.
  const bool budget_point =
      budget_readings_.due(u.number, static_cast<double>(u.tokens), u.flops,
                           static_cast<double>(tokens_before_ + session_tokens_),
                           flops_before_ + session_flops_) &&
      !valid_point;
  // Every checkpoint follows a read, so none is written after an undetected divergence.
  std::optional<DeviceMetrics::Reading> reading;
  if (log_point || valid_point || keep_point || budget_point) {
    reading = read_metrics(/*reset_window=*/log_point);
    if (!reading) return outcome_;
    // The x axis "target tokens seen" of the dashboard and `export plot curves --x tokens`:
    // every session's tokens, so a resumed run continues the count.
    if (writes() && (log_point || valid_point || budget_point)) {
      metrics_->log(u.number, db::metric::kTargetTokens,
                    static_cast<double>(tokens_before_ + session_tokens_));
      // The x axis "compute"; none for a run resumed from a checkpoint that did not count it.
      if (std::isfinite(flops_before_))
        metrics_->log(u.number, db::metric::kTrainFlops, flops_before_ + session_flops_);
    }
    if (writes() && log_point) log(u, *reading);
    if (!writes() && log_point) window_.reset();
  }
  state_.update = u.number;
  state_.epoch = stream_->epoch();
  state_.batch_in_epoch = stream_->position();
  state_.loss_scale = scaler_->scale_value();
  state_.loss_scale_clean_updates = scaler_->clean_updates();
  // A budget's reading: the validation loss where a table at that budget reads the run, and
  // nothing else of a validation -- no checkpoint, and train.patience does not count it, so the
  // run trains and stops as it would without it.
  if (budget_point && !data_->valid.empty()) {
    if (writes())
      log_validation(u.number);
    else
      validation_loss();  // this rank's share
  }
  if (!writes()) {
    if (valid_point && !data_->valid.empty()) {  // this rank's share, in rank 0's order
      // The sums (and a valid_bleu selected on) are every rank's: each counts train.patience as
      // rank 0 does, and stops with it.
      const LossReport valid = validation_loss();
      const auto bleu = tc_.valid_bleu > 0 ? log_valid_bleu(u.number) : std::nullopt;
      if (const auto value = best_metric_value(valid, bleu)) record_best(u.number, *value);
    }
    return std::nullopt;
  }
  // A kept checkpoint follows the update's validation, as the resume point does: a fork from
  // it counts train.patience and keeps checkpoint_best exactly as its parent went on to.
  if (valid_point) validate(u.number);
  if (keep_point) keep_checkpoint(u.number, *reading, log_point);
  if (valid_point) {
    // Ended by patience, not at its last update anyway.
    if (patience_exhausted(state_.validation, tc_.patience) && state_.update < tc_.max_updates)
      stop_early();
    state_.window = window_state(*reading, log_point);
    count_training();
    save_resume_point();
  }
  return std::nullopt;
}

void TrainingSession::beat() {
  if (!heartbeat_ && options_.heartbeat_s > 0)
    heartbeat_.emplace(store_->location(), *lease_, options_.heartbeat_s);
}

void TrainingSession::hold() {
  if (lease_)
    store_->mark_running(*lease_, host_name(), device_.str());
  else
    lease_ = store_->mark_running(run_, host_name(), device_.str());
  if (options_.on_hold) options_.on_hold(*lease_);
  beat();
}

void TrainingSession::between_phases(const char* next) {
  if (heartbeat_) heartbeat_->throw_if_lost();
  throw_if_stop_requested(options_.stop_requested, next);
}

// Reads the device metrics (the only device-to-host wait of an update without a log,
// validation or fp16 loss scaling) and ends the run as diverged when an update since the
// last read broke the rule. That update and the ones after it were applied on the device,
// but no checkpoint is written after them: every checkpoint follows a read.
std::optional<DeviceMetrics::Reading> TrainingSession::read_metrics(bool reset_window) {
  DeviceMetrics::Reading reading = device_metrics_->read(reset_window);
  state_.first_loss = reading.first_loss;
  if (!reading.diverged_update) return reading;
  const int64_t update = *reading.diverged_update;
  outcome_.status = db::status::kDiverged;
  outcome_.diverged_step = update;
  outcome_.reason = reading.reason;
  outcome_.updates = update - 1;
  if (!writes()) return std::nullopt;  // every rank read the same sums: rank 0 records it
  metrics_->log(update, db::metric::kTrainLoss, reading.diverged_loss);
  metrics_->log(update, db::metric::kGradNorm, reading.diverged_grad_norm);
  metrics_->flush();
  bar_->stop(update, "diverged at update " + std::to_string(update) + ": " + reading.reason);
  store_->heartbeat(*lease_, update - 1);
  store_->finish_run(*lease_, db::status::kDiverged, reading.reason, update);
  return std::nullopt;
}

}  // namespace fathom
