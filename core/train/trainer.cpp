#include "core/train/trainer.h"

#include <cstdio>

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "base/config/config_io.h"
#include "base/metrics/bleu.h"
#include "base/util/error.h"
#include "base/util/file_write.h"
#include "base/util/malloc_setup.h"
#include "base/util/process.h"
#include "base/util/progress.h"
#include "core/data/dataset.h"
#include "core/data/lm_text.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "core/train/batch_stream.h"
#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/train/device_metrics.h"
#include "core/train/evaluate.h"
#include "core/train/final_evaluation.h"
#include "core/train/grad_clip.h"
#include "core/train/layer_grad_norms.h"
#include "core/train/loss.h"
#include "core/train/loss_scaler.h"
#include "core/train/optimizer.h"
#include "core/train/precision.h"
#include "core/train/prepared_state.h"
#include "core/train/probes.h"
#include "core/train/resume_point.h"
#include "core/train/run_files.h"
#include "core/train/schedule.h"
#include "core/train/stop_request.h"
#include "core/train/system_metrics.h"
#include "core/train/training_steps.h"
#include "core/train/valid_samples.h"
#include "core/train/z_loss.h"
#include "db/metric_names.h"
#include "db/metric_writer.h"
#include "db/run_status.h"

namespace fathom {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What the host knows of the updates since the last log line (the loss sums stay on the
// device, core/train/device_metrics.h).
struct Window {
  int64_t tokens = 0, updates = 0;
  int64_t grad_norm_updates = 0;  // updates not skipped by the loss scaler
  int64_t skipped = 0;            // updates skipped by the loss scaler (fp16)
  Clock::time_point start = Clock::now();
  void reset() { *this = Window(); }
};

// One session of one run: what train_run's steps share. The steps, in the order train_run
// calls them: hold (take the run), load_data, build_model, resume, start_loop, then per
// update serve_stop_request, one_update and after_update (log, keep, validate, checkpoint),
// then finish (the final evaluation). Members are declared in the order they come to exist,
// so they are torn down in reverse (the metric writer flushes before the stream's thread
// stops; the heartbeat outlives everything that writes under the lease).
class TrainingSession {
 public:
  TrainingSession(const RunConfig& config, db::Store& store, const TrainOptions& options)
      : config_(config),
        tc_(config.train),
        store_(store),
        options_(options),
        run_(options.run_id),
        device_(resolve_device(config.device)),
        precision_(plan_precision(config, device_)),  // refuses before any work
        lease_(options.lease) {}

  const PrecisionPlan& precision() const { return precision_; }

  // The run's holder (db/lease.h): every write below is fenced by the lease. A worker holds the
  // run from its launcher's claim; otherwise the run is taken here -- a resumed one only once
  // its checkpoint has loaded (resume()), so an unreadable one leaves the run as it was (a
  // finished run stays finished, with its times).
  void hold_unless_resuming() {
    if (lease_) beat();  // alive from the claim on, also while the data loads
    if (!options_.resume) hold();
  }

  // Between these phases a stop request ends the session (core/train/stop_request.h); so does a
  // lost lease, which the heartbeat thread learns of. The outcome of such a stop: nothing
  // trained in this session, the resume point is the one the run had.
  std::optional<TrainOutcome> stopped_before(const char* next) {
    try {
      between_phases(next);
    } catch (const StopRequested& stop) {
      return stopped_before_training(store_, run_, stop.what());
    }
    return std::nullopt;
  }

  // Loading may prepare the corpus (minutes on a large one): a stop request ends it between
  // chunks, the chunks done kept for the next session.
  std::optional<TrainOutcome> load_data() {
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
      config_error(config_, "train.probe_every",
                   "the probes read validation pairs; there are none");
    if (tc_.probe_every > 0 && static_cast<size_t>(tc_.probe_sentences) > data_->valid.size())
      config_error(config_, "train.probe_sentences",
                   std::to_string(tc_.probe_sentences) +
                       " probe pairs, but the validation set has " +
                       std::to_string(data_->valid.size()));
    return std::nullopt;
  }

  void build_model() {
    model_ = fathom::build_model(config_, data_->vocab->size(), tc_.seed);
    model_->to(device_);
    for (const auto& p : model_->named_parameters()) {
      named_.emplace_back(p.key(), p.value());
      parameters_.push_back(p.value());
    }
    optimizer_.emplace(named_, tc_);
    config_yaml_ = config_to_yaml(config_);
  }

  // A resumed run: its checkpoint (or the one before an unreadable one) restores the model,
  // the optimizer and the trainer state; the metric rows after it are deleted (redone, never
  // duplicated). Then the run's tags, and a fresh run's data-dependent initialization.
  void resume() {
    if (options_.resume) {
      const auto [last, previous] = recorded_resume_points(store_, run_, options_.artifacts_dir);
      restored_from_ = load_resume_point(last, previous, *model_, *optimizer_, state_);
      hold();
    }
    const bool restored = !restored_from_.empty();
    files_.emplace(store_, *lease_, options_.artifacts_dir);
    if (options_.resume) {
      // Points past the checkpoint (all of them when there is none) are redone.
      store_.delete_metrics_after(*lease_, state_.update);
      // Resumed from the one before an unreadable last: that one is the resume point now.
      if (restored && restored_from_ != files_->current("checkpoint_last"))
        files_->adopt("checkpoint_last", restored_from_, state_.update);
      files_->remove_strays();
    }
    // The best validation loss refers to the recorded checkpoint_best; a run without one (a
    // fork: its parent's best is not its own) records its own at its next validation.
    if (files_->current("checkpoint_best").empty())
      state_.best_valid_loss = std::numeric_limits<double>::infinity();
    store_.set_tag(*lease_, "vocab", data_->vocab->describe());
    // The loss of a uniform prediction is ln V: what learning-rate sensitivity caps at.
    store_.set_tag(*lease_, "vocab.size", std::to_string(data_->vocab->size()));
    store_.set_tag(*lease_, "data", data_->description);
    for (const auto& [kind, count] : model_->parameter_counts())
      store_.set_tag(*lease_, "params." + kind, std::to_string(count));

    plan_ = plan_batches(data_->train, config_.data.max_tokens);
    if (!restored) {
      // Data-dependent initialization (Admin profiling) sees the batch update 1 will train on.
      const Batch first = BatchStream(data_->train, plan_, tc_.seed, 0, 0).next().to(device_);
      torch::manual_seed(update_seed(tc_.seed, 0));
      const PreparedState prepared =
          prepare_model(*model_, InitContext{config_, first, stored_tag_reader(store_)});
      keep_prepared_state(store_, *files_, prepared);
    }
  }

  // The update loop's state, continuing the checkpoint's log window.
  void start_loop() {
    stream_.emplace(BatchStream(data_->train, plan_, tc_.seed, state_.epoch, state_.batch_in_epoch),
                    device_);
    device_metrics_.emplace(device_, tc_.divergence_factor, state_.first_loss);
    device_metrics_->restore_window(state_.window.smoothed, state_.window.nll,
                                    state_.window.grad_norm);
    scaler_.emplace(state_.loss_scale, state_.loss_scale_clean_updates);
    metrics_.emplace(store_, *lease_);
    validate_at_init();  // before the clocks start: not training time
    bar_.emplace("train", tc_.max_updates, options_.progress);
    window_.tokens = state_.window.tokens;
    window_.updates = state_.window.updates;
    window_.grad_norm_updates = state_.window.grad_norm_updates;
    window_.skipped = state_.window.skipped;
    window_.start = Clock::now();
    session_first_update_ = state_.update + 1;
    seconds_before_ = state_.train_seconds;
    tokens_before_ = state_.train_tokens;
    train_start_ = Clock::now();
    model_->train();
    model_->hooks().checkpoint_layers = tc_.checkpoint_activations;
    if (tc_.probe_every > 0) {
      std::vector<size_t> first(static_cast<size_t>(tc_.probe_sentences));
      for (size_t i = 0; i < first.size(); ++i) first[i] = i;
      probes_.emplace(*model_, collate(data_->valid, first).to(device_), precision_.autocast,
                      TrainingProbes::weight_matrices(named_));
    }
  }

  bool updates_left() const { return state_.update < tc_.max_updates; }

  // A lost lease stops the session, writing nothing. A stop request (preemption, a time
  // limit's warning signal) is served at an update boundary: the checkpoint holds exactly the
  // updates done, and the caller requeues the run.
  std::optional<TrainOutcome> serve_stop_request() {
    if (heartbeat_) heartbeat_->throw_if_lost();
    if (!options_.stop_requested || !options_.stop_requested->load()) return std::nullopt;
    if (state_.update >= session_first_update_) {  // else the checkpoint on disk is this state
      const auto reading = read_metrics(/*reset_window=*/false);
      if (!reading) return outcome_;
      state_.window = window_state(*reading, /*just_logged=*/window_.updates == 0);
      count_training();
      save_resume_point();
    }
    metrics_->flush();
    store_.heartbeat(*lease_, state_.update);
    bar_->stop(state_.update,
               "stopped after update " + std::to_string(state_.update) + " (stop requested)");
    outcome_.status = TrainOutcome::kStopped;
    outcome_.reason = "stop requested after update " + std::to_string(state_.update);
    outcome_.updates = state_.update;
    return outcome_;
  }

  struct Update {
    int64_t number = 0, tokens = 0;
    double lr = 0;
  };

  // Forward and backward over batches of at least train.update_tokens target tokens, the
  // gradient's clipping and the optimizer's step. Nothing is read from the device.
  Update one_update() {
    Update u;
    u.number = state_.update + 1;
    torch::manual_seed(update_seed(tc_.seed, u.number));

    // One update reads batches until it has `update_tokens` target tokens (at least one).
    std::vector<Batch> parts{stream_->next()};
    u.tokens = parts.back().tgt_tokens;
    while (tc_.update_tokens > 0 && u.tokens < tc_.update_tokens) {
      parts.push_back(stream_->next());
      u.tokens += parts.back().tgt_tokens;
    }

    const bool probed = probes_ && u.number % tc_.probe_every == 0;
    if (probed) probes_->before_update();
    optimizer_->zero_grad();
    for (const Batch& batch : parts) {
      LossSums sums;
      torch::Tensor objective;
      {
        AutocastScope autocast(precision_.autocast);
        const torch::Tensor logits = model_->forward(batch.src, batch.tgt_in);
        sums = label_smoothed_loss(logits, batch.tgt_out, tc_.label_smoothing,
                                   /*count_tokens=*/false);
        objective = sums.smoothed;
        if (tc_.z_loss > 0) objective = objective + tc_.z_loss * z_loss_sum(logits, batch.tgt_out);
      }
      // Gradient of the per-token mean over the whole update, however it was split.
      torch::Tensor mean = objective / static_cast<double>(u.tokens);
      (precision_.loss_scaling ? scaler_->scale(mean) : mean).backward();
      device_metrics_->add_batch(sums);
    }
    // fp16: a gradient that overflowed skips the update (and the scaler halves its scale).
    const bool skipped =
        precision_.loss_scaling && scaler_->unscale_and_find_non_finite(parameters_);
    if (precision_.loss_scaling) scaler_->update(skipped);
    const double max_norm =
        tc_.clip_norm > 0 ? tc_.clip_norm : std::numeric_limits<double>::infinity();
    // Per-layer norms before clipping rescales them (methods.md s5.3); a diagnostic that
    // reads from the device at its own points.
    if (tc_.grad_norm_every > 0 && u.number % tc_.grad_norm_every == 0 && !skipped)
      for (const auto& [layer, norm] : layer_grad_norms(named_))
        metrics_->log(u.number, db::metric::kLayerGradNormPrefix + layer, norm);
    const torch::Tensor grad_norm =
        skipped ? torch::Tensor() : clip_grad_norm_on_device(parameters_, max_norm);
    device_metrics_->end_update(u.number, u.tokens, grad_norm);

    u.lr = inverse_sqrt_lr(u.number, tc_.lr, tc_.warmup);
    if (!skipped) optimizer_->step(u.lr);
    if (probed) log_probes(u.number);

    window_.tokens += u.tokens;
    window_.updates += 1;
    window_.grad_norm_updates += skipped ? 0 : 1;
    window_.skipped += skipped ? 1 : 0;
    session_tokens_ += u.tokens;
    const double window_rate = window_.tokens / std::max(seconds_since(window_.start), 1e-9);
    bar_->update(u.number, format_training_status(last_logged_loss_, u.lr, window_rate));
    return u;
  }

  // What follows update `u` at its points: a read of the device metrics (the end when it
  // diverged), the log rows, a kept checkpoint, validation and the resume point.
  std::optional<TrainOutcome> after_update(const Update& u) {
    const bool log_point = u.number % tc_.log_every == 0 || u.number == tc_.max_updates;
    const bool valid_point = u.number % tc_.valid_every == 0 || u.number == tc_.max_updates;
    const bool keep_point =
        tc_.keep_checkpoint_every > 0 && u.number % tc_.keep_checkpoint_every == 0;
    // Every checkpoint follows a read, so none is written after an undetected divergence.
    std::optional<DeviceMetrics::Reading> reading;
    if (log_point || valid_point || keep_point) {
      reading = read_metrics(/*reset_window=*/log_point);
      if (!reading) return outcome_;
      // The x axis "target tokens seen" of the dashboard and `export plot curves --x tokens`:
      // every session's tokens, so a resumed run continues the count.
      if (log_point || valid_point)
        metrics_->log(u.number, db::metric::kTargetTokens,
                      static_cast<double>(tokens_before_ + session_tokens_));
      if (log_point) log(u, *reading);
    }
    state_.update = u.number;
    state_.epoch = stream_->epoch();
    state_.batch_in_epoch = stream_->position();
    state_.loss_scale = scaler_->scale_value();
    state_.loss_scale_clean_updates = scaler_->clean_updates();
    if (keep_point) keep_checkpoint(u.number, *reading, log_point);
    if (valid_point) {
      validate(u.number);
      state_.window = window_state(*reading, log_point);
      count_training();
      save_resume_point();
    }
    return std::nullopt;
  }

  // The model of the best validation loss, the final evaluation (test perplexity and BLEU),
  // every final metric, and the run marked finished.
  TrainOutcome finish() {
    const double train_seconds = seconds_since(train_start_);
    bar_->finish(session_tokens_ > 0
                     ? format_training_status(outcome_.final_metrics[db::metric::kTrainLoss],
                                              inverse_sqrt_lr(state_.update, tc_.lr, tc_.warmup),
                                              session_tokens_ / train_seconds)
                     : "already complete");
    metrics_->flush();

    // Final evaluation with the best checkpoint (by validation loss) when there is one.
    auto& final_metrics = outcome_.final_metrics;
    if (const std::string best = files_->current("checkpoint_best"); !best.empty())
      load_checkpoint(best, *model_, nullptr, nullptr);
    // Every final metric is recomputable from what is stored, so a run killed after its last
    // update and resumed (the loop then has nothing left to do) still reports all of them.
    if (session_tokens_ > 0) count_training();
    if (state_.train_seconds > 0) {
      final_metrics[db::metric::kTrainTime] = state_.train_seconds;
      final_metrics[db::metric::kTokensPerSecond] = state_.train_tokens / state_.train_seconds;
    }
    final_metrics[db::metric::kTrainTokens] = static_cast<double>(state_.train_tokens);
    if (!final_metrics.count(db::metric::kTrainLoss)) {
      const int64_t last = store_.last_metric_step(run_, db::metric::kTrainLoss);
      const auto points = store_.metric_points_after(run_, db::metric::kTrainLoss, last - 1);
      if (!points.empty()) final_metrics[db::metric::kTrainLoss] = points.back().value;
    }
    final_metrics[db::metric::kParams] = static_cast<double>(model_->parameter_counts()["total"]);
    FinalEvaluationOptions what;
    what.progress = options_.progress;
    what.stop = options_.stop_requested;
    FinalEvaluation final;
    try {
      between_phases("the final evaluation");
      final = final_evaluation(*model_, *data_, config_, device_, what);
    } catch (const StopRequested& stop) {
      // The resume point holds every update: a resume redoes only this evaluation.
      outcome_.status = TrainOutcome::kStopped;
      outcome_.stopped_during = stop.what();
      outcome_.reason = std::string("stop requested during ") + stop.what();
      outcome_.updates = state_.update;
      return outcome_;
    }
    add_evaluation_metrics(final, *data_, final_metrics);
    if (final.bleu) keep_bleu(final);
    for (const auto& [name, value] : final_metrics) store_.set_final_metric(*lease_, name, value);
    store_.heartbeat(*lease_, state_.update);
    store_.finish_run(*lease_, db::status::kFinished);
    outcome_.status = db::status::kFinished;
    outcome_.updates = state_.update;
    return outcome_;
  }

 private:
  void beat() {
    if (!heartbeat_ && options_.heartbeat_s > 0)
      heartbeat_.emplace(store_.location(), *lease_, options_.heartbeat_s);
  }
  void hold() {
    if (lease_)
      store_.mark_running(*lease_, host_name(), device_.str());
    else
      lease_ = store_.mark_running(run_, host_name(), device_.str());
    if (options_.on_hold) options_.on_hold(*lease_);
    beat();
  }
  void between_phases(const char* next) {
    if (heartbeat_) heartbeat_->throw_if_lost();
    throw_if_stop_requested(options_.stop_requested, next);
  }

  // Reads the device metrics (the only device-to-host wait of an update without a log,
  // validation or fp16 loss scaling) and ends the run as diverged when an update since the
  // last read broke the rule. That update and the ones after it were applied on the device,
  // but no checkpoint is written after them: every checkpoint follows a read.
  std::optional<DeviceMetrics::Reading> read_metrics(bool reset_window) {
    DeviceMetrics::Reading reading = device_metrics_->read(reset_window);
    state_.first_loss = reading.first_loss;
    if (!reading.diverged_update) return reading;
    const int64_t update = *reading.diverged_update;
    metrics_->log(update, db::metric::kTrainLoss, reading.diverged_loss);
    metrics_->log(update, db::metric::kGradNorm, reading.diverged_grad_norm);
    metrics_->flush();
    bar_->stop(update, "diverged at update " + std::to_string(update) + ": " + reading.reason);
    outcome_.status = db::status::kDiverged;
    outcome_.diverged_step = update;
    outcome_.reason = reading.reason;
    outcome_.updates = update - 1;
    store_.heartbeat(*lease_, update - 1);
    store_.finish_run(*lease_, db::status::kDiverged, reading.reason, update);
    return std::nullopt;
  }

  // The log window's rows at update `u`, then a new window.
  void log(const Update& u, const DeviceMetrics::Reading& reading) {
    // Timed after the read: on a GPU the host runs ahead of the device until then.
    const double logged_rate = window_.tokens / std::max(seconds_since(window_.start), 1e-9);
    const double loss = reading.smoothed / window_.tokens;
    metrics_->log(u.number, db::metric::kTrainLoss, loss);
    metrics_->log(u.number, db::metric::kTrainNll, reading.nll / window_.tokens);
    metrics_->log(u.number, db::metric::kTrainPpl, std::exp(reading.nll / window_.tokens));
    metrics_->log(u.number, db::metric::kLearningRate, u.lr);
    if (window_.grad_norm_updates > 0)
      metrics_->log(u.number, db::metric::kGradNorm, reading.grad_norm / window_.grad_norm_updates);
    metrics_->log(u.number, db::metric::kTokensPerSecond, logged_rate);
    if (precision_.loss_scaling) {
      metrics_->log(u.number, db::metric::kLossScale, scaler_->scale_value());
      metrics_->log(u.number, db::metric::kSkippedUpdates, static_cast<double>(window_.skipped));
    }
    system_.log(*metrics_, u.number);  // sys.* rows (core/train/system_metrics.h)
    outcome_.final_metrics[db::metric::kTrainLoss] = loss;
    last_logged_loss_ = loss;
    store_.heartbeat(*lease_, u.number);
    window_.reset();
  }

  // The probes of update `update` (core/train/probes.h): scalars as metric rows, the
  // per-layer values as probe points.
  void log_probes(int64_t update) {
    const ProbeReading reading = probes_->after_update();
    metrics_->log(update, db::metric::kProbeLogZMean, reading.log_z_mean);
    metrics_->log(update, db::metric::kProbeLogZMax, reading.log_z_max);
    metrics_->log(update, db::metric::kProbeOutputChange, reading.output_change);
    std::vector<db::ProbeRow> rows;
    for (const ProbeValues& p : reading.per_position)
      rows.push_back(db::ProbeRow{update, p.probe, p.positions, p.values, 0});
    metrics_->log_probes(std::move(rows));
  }

  // With the optimizer state and the log window: kept checkpoints are analysed, and a fork
  // (core/train/fork.h) continues from one exactly as the run did.
  void keep_checkpoint(int64_t update, const DeviceMetrics::Reading& reading, bool just_logged) {
    state_.window = window_state(reading, just_logged);
    count_training();
    const std::string kept = "checkpoint_" + std::to_string(update);
    const std::string path = files_->name(kept, std::nullopt, ".pt");
    save_checkpoint(path, *model_, &*optimizer_, state_, config_yaml_);
    files_->record(kept, path, update);
  }

  // The validation loss, NLL, perplexity (and bits per byte) as rows at `update`.
  LossReport log_validation(int64_t update) {
    LossReport valid =
        evaluate_loss(*model_, data_->valid, config_.data.max_tokens, device_, tc_.label_smoothing);
    metrics_->log(update, db::metric::kValidLoss, valid.loss);
    metrics_->log(update, db::metric::kValidNll, valid.nll);
    metrics_->log(update, db::metric::kValidPpl, valid.ppl);
    if (data_->valid_bytes > 0)
      metrics_->log(update, db::metric::kValidBpb,
                    bits_per_byte(valid.nll * valid.tokens, data_->valid_bytes));
    return valid;
  }

  // The loss at initialization, logged at update 0 before the first update: learning-rate
  // sensitivity caps each run's loss at its own (experiments/lr_sensitivity.h). Not a
  // checkpoint_best candidate: the model reported is always a trained one.
  void validate_at_init() {
    if (data_->valid.empty() || state_.update != 0) return;
    log_validation(0);
    metrics_->flush();
  }

  // Validation loss and perplexity; a new best is kept as checkpoint_best.
  void validate(int64_t update) {
    if (data_->valid.empty()) return;
    const LossReport valid = log_validation(update);
    if (tc_.valid_samples > 0) keep_valid_samples(update);
    if (valid.loss < state_.best_valid_loss) {
      state_.best_valid_loss = valid.loss;
      const std::string path = files_->name("checkpoint_best", update, ".pt");
      save_checkpoint(path, *model_, nullptr, state_, config_yaml_);
      files_->record("checkpoint_best", path, update);
    }
  }

  // A few validation sentences as the model now renders them (valid_samples.h).
  void keep_valid_samples(int64_t update) {
    store_.set_tag(*lease_, db::kSamplesTagPrefix + std::to_string(update),
                   validation_samples_json(*model_, *data_, config_, update, device_).dump());
  }

  // Training time and tokens of earlier sessions (from the checkpoint), and so of the run.
  void count_training() {
    state_.train_seconds = seconds_before_ + seconds_since(train_start_);
    state_.train_tokens = tokens_before_ + session_tokens_;
  }

  // What a checkpoint keeps of the log window (nothing right after a log point), so a run
  // resumed from it logs the same rows as an uninterrupted one.
  LogWindowState window_state(const DeviceMetrics::Reading& reading, bool just_logged) const {
    if (just_logged) return LogWindowState{};
    return LogWindowState{window_.tokens,   window_.updates,  window_.grad_norm_updates,
                          window_.skipped,  reading.smoothed, reading.nll,
                          reading.grad_norm};
  }

  // The checkpoint a resume starts from. The metric rows up to it reach the store first: a
  // resume deletes the rows after its checkpoint and redoes them, so a kill between the two
  // writes must find the rows, not the checkpoint, ahead. While the store refuses the rows
  // (an outage), the previous checkpoint stays the resume point.
  void save_resume_point() {
    metrics_->flush();
    if (metrics_->pending() > 0) {
      std::fprintf(
          stderr,
          "warning: metric rows not stored yet; checkpoint_last kept at its previous update\n");
      return;
    }
    if (files_->current_step("checkpoint_last") == state_.update) return;  // recorded already
    // The resume point before this one stays as checkpoint_previous: a checkpoint_last
    // that turns out unreadable (a bad disk block, a copy cut short) costs one interval.
    const std::string path = files_->name("checkpoint_last", state_.update, ".pt");
    save_checkpoint(path, *model_, &*optimizer_, state_, config_yaml_);
    files_->record("checkpoint_last", path, state_.update, "checkpoint_previous");
  }

  // BLEU's score and signature, and the test hypotheses it was computed on.
  void keep_bleu(const FinalEvaluation& final) {
    outcome_.final_metrics[db::metric::kDecodeTime] = final.decode_seconds;
    outcome_.final_metrics[db::metric::kTestBleu] = final.bleu->score;
    store_.set_tag(*lease_, "bleu_signature", final.bleu->signature);
    store_.set_tag(*lease_, "bleu", final.bleu->format());
    const std::string hypotheses_path = files_->name("test", std::nullopt, ".hyp");
    std::string text;
    for (const auto& line : final.hypotheses) text += line + "\n";
    // Checked: a short test.hyp beside a run recorded as finished would be a silent loss.
    write_file_or_throw(hypotheses_path, text, "the test hypotheses");
    files_->record("hypotheses", hypotheses_path, state_.update);
  }

  const RunConfig& config_;
  const TrainConfig& tc_;
  db::Store& store_;
  const TrainOptions& options_;
  const int64_t run_;
  const torch::Device device_;
  const PrecisionPlan precision_;
  SystemMetrics system_{device_};
  std::optional<db::Lease> lease_;
  std::optional<db::HeartbeatThread> heartbeat_;
  TrainerState state_;
  std::optional<Dataset> data_;
  Transformer model_{nullptr};
  std::vector<std::pair<std::string, torch::Tensor>> named_;
  std::vector<torch::Tensor> parameters_;
  std::optional<Optimizer> optimizer_;
  std::string config_yaml_;
  std::string restored_from_;  // the checkpoint file this session starts from
  std::optional<RunFiles> files_;
  BatchPlan plan_;
  std::optional<PrefetchingBatchStream> stream_;
  std::optional<DeviceMetrics> device_metrics_;
  std::optional<LossScaler> scaler_;
  std::optional<db::MetricWriter> metrics_;
  std::optional<ProgressBar> bar_;
  std::optional<TrainingProbes> probes_;  // train.probe_every > 0
  TrainOutcome outcome_;
  Window window_;
  int64_t session_first_update_ = 1;
  double last_logged_loss_ = NAN;  // what the progress bar shows between log points
  Clock::time_point train_start_;
  int64_t session_tokens_ = 0;
  double seconds_before_ = 0;  // earlier sessions' training time and tokens (the checkpoint's)
  int64_t tokens_before_ = 0;
};

}  // namespace

TrainOutcome train_run(const RunConfig& config, db::Store& store, const TrainOptions& options) {
  TrainingSession session(config, store, options);  // refuses a bad precision before any work
  configure_threads(config.train.threads, bf16_matmuls_on_cpu(session.precision().autocast));
  keep_freed_memory();  // each step re-allocates the same activations: keep their pages
  session.hold_unless_resuming();
  if (auto stopped = session.stopped_before("loading the data")) return *stopped;
  if (auto stopped = session.load_data()) return *stopped;
  if (auto stopped = session.stopped_before("building the model")) return *stopped;
  session.build_model();
  session.resume();
  session.start_loop();
  while (session.updates_left()) {
    if (auto stopped = session.serve_stop_request()) return *stopped;
    const auto update = session.one_update();
    if (auto ended = session.after_update(update)) return *ended;  // diverged
  }
  return session.finish();
}

}  // namespace fathom
