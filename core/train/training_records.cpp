// What a training session records (core/train/training_session.h): the log rows, the probes,
// kept checkpoints, validation with checkpoint_best, the resume point, and the final
// evaluation. Only rank 0 of a data-parallel run gets here.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "base/config/lr_schedule.h"
#include "base/util/file_write.h"
#include "core/data/lm_text.h"
#include "core/train/checkpoint_average.h"
#include "core/train/rank_group.h"
#include "core/train/shared_evaluation.h"
#include "core/train/stop_request.h"
#include "core/train/training_session.h"
#include "core/train/training_steps.h"
#include "core/train/valid_samples.h"
#include "db/averaged_checkpoints.h"
#include "db/early_stop_tag.h"
#include "db/final_model_tag.h"
#include "db/metric_names.h"
#include "db/run_status.h"

namespace fathom {

// The model of the best train.best_metric, the final evaluation (test perplexity and BLEU),
// every final metric, and the run marked finished.
TrainOutcome TrainingSession::finish() {
  const double train_seconds = seconds_since(train_start_);
  if (graphs_) {
    outcome_.graphed_batches = graphs_->replayed_batches();
    std::fprintf(stderr, "train.cuda_graphs: %s\n", graphs_->summary().c_str());
  }
  bar_->finish(session_tokens_ > 0
                   ? format_training_status(outcome_.final_metrics[db::metric::kTrainLoss],
                                            learning_rate(tc_, state_.update),
                                            session_tokens_ / train_seconds)
                   : "already complete");
  metrics_->flush();

  auto& final_metrics = outcome_.final_metrics;
  load_final_model();
  // The other ranks evaluate this model with rank 0 (follower_done), each its share.
  if (options_.ranks)
    options_.ranks->publish("final/model",
                            checkpoint_bytes(*model_, nullptr, state_, config_yaml_));
  // Every final metric is recomputable from what is stored, so a run killed after its last
  // update and resumed (the loop then has nothing left to do) still reports all of them.
  if (session_tokens_ > 0) count_training();
  if (state_.train_seconds > 0) {
    final_metrics[db::metric::kTrainTime] = state_.train_seconds;
    final_metrics[db::metric::kTokensPerSecond] = state_.train_tokens / state_.train_seconds;
  }
  final_metrics[db::metric::kTrainTokens] = static_cast<double>(state_.train_tokens);
  if (std::isfinite(state_.train_flops))
    final_metrics[db::metric::kTrainFlops] = state_.train_flops;
  if (!final_metrics.count(db::metric::kTrainLoss)) {
    const int64_t last = store_->last_metric_step(run_, db::metric::kTrainLoss);
    const auto points = store_->metric_points_after(run_, db::metric::kTrainLoss, last - 1);
    if (!points.empty()) final_metrics[db::metric::kTrainLoss] = points.back().value;
  }
  final_metrics[db::metric::kParams] = static_cast<double>(model_->parameter_counts()["total"]);
  FinalEvaluationOptions what;
  what.progress = options_.progress;
  what.stop = stop_flag();
  what.ranks = options_.ranks;
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
  keep_segment_nll(final);
  for (const auto& [name, value] : final_metrics) store_->set_final_metric(*lease_, name, value);
  store_->heartbeat(*lease_, state_.update);
  store_->finish_run(*lease_, db::status::kFinished);
  outcome_.status = db::status::kFinished;
  outcome_.updates = state_.update;
  return outcome_;
}

// The log window's rows at update `u`, then a new window.
void TrainingSession::log(const Update& u, const DeviceMetrics::Reading& reading) {
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
  if (reducer_ && window_.updates > 0) {
    const double updates = static_cast<double>(window_.updates);
    metrics_->log(u.number, db::metric::kAllReduceSeconds, window_.reduce_seconds / updates);
    metrics_->log(u.number, db::metric::kAllReduceOverlapSeconds,
                  window_.reduce_overlap_seconds / updates);
  }
  if (precision_.loss_scaling) {
    metrics_->log(u.number, db::metric::kLossScale, scaler_->scale_value());
    metrics_->log(u.number, db::metric::kSkippedUpdates, static_cast<double>(window_.skipped));
  }
  if (noise_) log_noise_scale(u.number);
  system_.log(*metrics_, u.number);  // sys.* rows (core/train/system_metrics.h)
  outcome_.final_metrics[db::metric::kTrainLoss] = loss;
  last_logged_loss_ = loss;
  store_->heartbeat(*lease_, u.number);
  window_.reset();
}

// train.noise_scale's rows of the log window (db/metric_names.h), then a new window.
void TrainingSession::log_noise_scale(int64_t update) {
  namespace m = db::metric;
  const NoiseScaleWindow window = noise_->window();
  noise_->reset();
  if (window.updates == 0) return;
  const NoiseScaleEstimate e = estimate_noise_scale(window);
  metrics_->log(update, m::kNoiseUpdates, static_cast<double>(window.updates));
  metrics_->log(update, m::kNoiseTrace, e.trace);
  metrics_->log(update, m::kNoiseGradSq, e.grad_sq);
  if (std::isfinite(e.trace_se)) metrics_->log(update, m::kNoiseTraceSe, e.trace_se);
  if (std::isfinite(e.grad_sq_se)) metrics_->log(update, m::kNoiseGradSqSe, e.grad_sq_se);
  if (std::isfinite(e.b_simple)) metrics_->log(update, m::kNoiseBSimple, e.b_simple);
  if (std::isfinite(e.b_low)) metrics_->log(update, m::kNoiseBSimpleLow, e.b_low);
  if (std::isfinite(e.b_high)) metrics_->log(update, m::kNoiseBSimpleHigh, e.b_high);
}

// The probes of update `update` (core/train/probes.h): scalars as metric rows, the
// per-layer values as probe points.
void TrainingSession::log_probes(int64_t update) {
  const ProbeReading reading = probes_->after_update();
  metrics_->log(update, db::metric::kProbeLogZMean, reading.log_z_mean);
  metrics_->log(update, db::metric::kProbeLogZMax, reading.log_z_max);
  metrics_->log(update, db::metric::kProbeOutputChange, reading.output_change);
  std::vector<db::ProbeRow> rows;
  for (const ProbeValues& p : reading.per_position)
    rows.push_back(db::ProbeRow{update, p.probe, p.positions, p.values, 0});
  metrics_->log_probes(std::move(rows));
}

// After the update's step: the next update's rate is the one the stability ratio is about.
void TrainingSession::log_sharpness(int64_t update) {
  const SharpnessReading r =
      sharpness_->measure(optimizer_->diagonal_step_factors(sharpness_->parameters()), update);
  auto log_finite = [&](const std::string& name, double value) {
    if (std::isfinite(value)) metrics_->log(update, name, value);  // a diverged loss has none
  };
  log_finite(db::metric::kSharpness, r.sharpness.largest);
  if (r.preconditioned) {
    log_finite(db::metric::kPreconditionedSharpness, r.preconditioned->largest);
    log_finite(db::metric::kEdgeOfStabilityRatio, learning_rate(tc_, update + 1) *
                                                      r.preconditioned->largest /
                                                      adaptive_stability_threshold(tc_.betas[0]));
  }
  metrics_->log(update, db::metric::kSharpnessProducts, r.products());
}

// The model the final evaluation measures: with eval.average_checkpoints N, the mean of N kept
// checkpoints -- the newest, or with eval.average_by best those whose update's
// train.best_metric is best (db/averaged_checkpoints.h) --, recorded as checkpoint_average
// (`fathom translate --checkpoint average` decodes with it); else the checkpoint of the best
// train.best_metric where there is one. The tag final_model says which.
void TrainingSession::load_final_model() {
  db::FinalModel which{db::FinalModel::Kind::FinalWeights, state_.update, {}, 0, false, ""};
  if (const int n = config_.eval.average_checkpoints; n > 0) {
    const bool by_best = config_.eval.average_by == "best";
    std::map<int64_t, double> metric_at;  // the validations the best are ranked by
    if (by_best)
      for (const auto& p : store_->metric_series(run_, best_metric_.name))
        metric_at[p.step] = p.value;
    auto kept = db::checkpoints_to_average(kept_checkpoints(store_->artifacts(run_), files_->dir()),
                                           n, by_best, metric_at, best_metric_.higher_is_better);
    // Only a fork that began after its last keep point has none: its own final weights, said.
    which.nothing_to_average = kept.empty();
    if (!kept.empty()) {
      std::vector<std::string> paths;
      which = {db::FinalModel::Kind::MeanOfKept, 0, {}, 0, false, by_best ? best_metric_.name : ""};
      for (const auto& k : kept) {
        paths.push_back(k.path);
        which.averaged.push_back(k.update);
      }
      if (static_cast<int>(kept.size()) < n) which.asked = n;
      average_checkpoints(paths, *model_);
      const std::string path = files_->name("checkpoint_average", state_.update, ".pt");
      save_checkpoint(path, *model_, nullptr, state_, config_yaml_);
      files_->record("checkpoint_average", path, state_.update);
    }
  } else if (const std::string best = files_->current("checkpoint_best"); !best.empty()) {
    load_checkpoint(best, *model_, nullptr, nullptr);
    which = {db::FinalModel::Kind::BestCheckpoint,
             files_->current_step("checkpoint_best"),
             {},
             0,
             false,
             best_metric_.name == db::metric::kValidLoss ? "" : best_metric_.name};
  }
  store_->set_tag(*lease_, db::kFinalModelTag, db::final_model_tag(which));
}

// With the optimizer state (unless train.keep_checkpoint_optimizer is false) and the log
// window: kept checkpoints are analysed, and a fork (core/train/fork.h) continues from one
// exactly as the run did. train.keep_checkpoints retires the oldest (or the worst) in the same
// recording.
void TrainingSession::keep_checkpoint(int64_t update, const DeviceMetrics::Reading& reading,
                                      bool just_logged) {
  const auto retired = retired_checkpoints(update);
  if (!retired) return;
  state_.window = window_state(reading, just_logged);
  count_training();
  const std::string kept = kept_checkpoint_kind(update);
  const std::string path = files_->name(kept, std::nullopt, ".pt");
  save_checkpoint(path, *model_, tc_.keep_checkpoint_optimizer ? &*optimizer_ : nullptr, state_,
                  config_yaml_);
  files_->record(kept, path, update, "", *retired);
  kept_now_ = update;
}

// The kept checkpoints that train.keep_checkpoints no longer keeps once the one at `update` is
// recorded: all but the newest N up to `update` -- with eval.average_by best, all but the N
// best by train.best_metric, and nullopt where the one at `update` would not be among them (it
// is not written; db/averaged_checkpoints.h). One a resumed run kept after its resume point is
// left alone: it is replaced when training reaches that update again.
std::optional<std::vector<std::string>> TrainingSession::retired_checkpoints(int64_t update) const {
  const int keep = tc_.keep_checkpoints;
  if (keep <= 0) return std::vector<std::string>{};
  std::vector<KeptCheckpoint> earlier;  // oldest first
  for (const auto& k : kept_checkpoints(files_->rows(), files_->dir()))
    if (k.update < update) earlier.push_back(k);
  std::vector<std::string> retired;
  if (config_.eval.average_by == "best") {
    std::map<int64_t, double> metric_at;  // earlier sessions' validations, then this one's
    for (const auto& p : store_->metric_series(run_, best_metric_.name))
      metric_at[p.step] = p.value;
    for (const auto& [at, value] : best_metric_at_) metric_at[at] = value;
    const db::BestRetention r =
        db::retain_best(earlier, update, keep, metric_at, best_metric_.higher_is_better);
    if (!r.write) return std::nullopt;
    for (const int64_t u : r.retired) retired.push_back(kept_checkpoint_kind(u));
    return retired;
  }
  const int64_t excess = static_cast<int64_t>(earlier.size()) - (keep - 1);
  for (int64_t i = 0; i < excess; ++i)
    retired.push_back(kept_checkpoint_kind(earlier[static_cast<size_t>(i)].update));
  return retired;
}

// The validation loss over the whole split. Data-parallel ranks each evaluate their share of
// its batches and add up the sums (every rank calls this at the same points), so validation
// takes 1/N of the time and no rank waits on rank 0 through it.
LossReport TrainingSession::validation_loss() {
  return loss_over_ranks(*model_, data_->valid, config_.data.max_tokens, device_,
                         tc_.label_smoothing, options_.ranks);
}

// The validation loss, NLL, perplexity (and bits per byte) as rows at `update` (rank 0).
LossReport TrainingSession::log_validation(int64_t update) {
  const LossReport valid = validation_loss();
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
void TrainingSession::validate_at_init() {
  if (data_->valid.empty() || state_.update != 0) return;
  if (!writes()) {
    validation_loss();  // this rank's share
    return;
  }
  log_validation(0);
  metrics_->flush();
}

// Validation loss and perplexity (and valid_bleu); a new best of train.best_metric is kept as
// checkpoint_best.
void TrainingSession::validate(int64_t update) {
  if (data_->valid.empty()) return;
  const LossReport valid = log_validation(update);
  if (tc_.valid_samples > 0) keep_valid_samples(update);
  const auto bleu = tc_.valid_bleu > 0 ? log_valid_bleu(update) : std::nullopt;
  if (const auto value = best_metric_value(valid, bleu)) record_best(update, *value);
}

std::optional<double> TrainingSession::best_metric_value(const LossReport& valid,
                                                         const std::optional<double>& bleu) const {
  if (best_metric_.name == db::metric::kValidBleu) return bleu;
  return valid.loss;
}

void TrainingSession::record_best(int64_t update, double value) {
  best_metric_at_[update] = value;  // what eval.average_by best retains kept checkpoints by
  if (!record_validation(state_.validation, update, value, tc_.patience_min_delta, best_metric_) ||
      !writes())
    return;
  const std::string path = files_->name("checkpoint_best", update, ".pt");
  save_checkpoint(path, *model_, nullptr, state_, config_yaml_);
  files_->record("checkpoint_best", path, update);
}

// train.patience ran out at this validation: the run ends here, finished (finish() evaluates
// the final model), and says why.
void TrainingSession::stop_early() {
  const std::string why = early_stop_text(state_.validation, state_.update, tc_.patience,
                                          tc_.max_updates, tc_.patience_min_delta, best_metric_);
  store_->set_tag(*lease_, db::kEarlyStopTag, why);
  bar_->stop(state_.update, "stopped early (train.patience), " + why);
}

// BLEU of the first train.valid_bleu validation sentences, decoded as the final evaluation
// decodes the test set (the eval section's search), so valid_bleu and test_bleu measure alike;
// the ranks of a data-parallel run share the decode (the others call this from after_update;
// rank 0 alone logs). A stop request -- preemption gives seconds, the decode of a large model
// on a CPU takes minutes -- ends the decode at its next batch, on every rank together; the
// update's checkpoint then records the point as pending, and the session resuming from it
// decodes it first.
std::optional<double> TrainingSession::log_valid_bleu(int64_t update) {
  std::optional<double> score;
  try {
    const std::optional<BleuScore> bleu =
        validation_bleu(*model_, *data_, config_, device_, tc_.valid_bleu, options_.ranks,
                        "valid/hypotheses/u" + std::to_string(update), stop_flag());
    if (bleu && writes()) metrics_->log(update, db::metric::kValidBleu, bleu->score);
    if (bleu) score = bleu->score;
    state_.valid_bleu_pending = 0;
  } catch (const StopRequested&) {
    state_.valid_bleu_pending = update;
    return std::nullopt;  // every rank together (translate_over_ranks)
  }
  if (options_.ranks && best_metric_.name == db::metric::kValidBleu) {
    // Rank 0's score to every rank: a sum with the others' zeros, exact.
    std::vector<torch::Tensor> shared{
        torch::tensor({score.value_or(0.0), score ? 1.0 : 0.0}, torch::kFloat64)};
    options_.ranks->all_reduce_sum(shared);
    const double* s = shared[0].data_ptr<double>();
    score = s[1] > 0 ? std::optional<double>(s[0]) : std::nullopt;
  }
  return score;
}

const std::atomic<bool>* TrainingSession::stop_flag() const {
  return options_.ranks ? &options_.ranks->stop_flag() : options_.stop_requested;
}

// The valid_bleu point a stop cut short at this checkpoint's update, decoded before training
// on (every rank: the ranks share it).
// Where valid_bleu is train.best_metric, that validation is counted now: the model is the one it
// measured (this checkpoint's), so a new best is kept as checkpoint_best here.
bool TrainingSession::decode_pending_valid_bleu() {
  const int64_t pending = state_.valid_bleu_pending;
  state_.valid_bleu_pending = 0;
  if (pending <= 0 || pending != state_.update || data_->valid.empty()) return false;
  const auto bleu = log_valid_bleu(pending);
  if (!bleu || best_metric_.name != db::metric::kValidBleu) return false;
  record_best(pending, *bleu);
  return patience_exhausted(state_.validation, tc_.patience);
}

// A few validation sentences as the model now renders them (valid_samples.h).
void TrainingSession::keep_valid_samples(int64_t update) {
  store_->set_tag(*lease_, db::kSamplesTagPrefix + std::to_string(update),
                  validation_samples_json(*model_, *data_, config_, update, device_).dump());
}

// Training time and tokens of earlier sessions (from the checkpoint), and so of the run.
void TrainingSession::count_training() {
  state_.train_seconds = seconds_before_ + seconds_since(train_start_);
  state_.train_tokens = tokens_before_ + session_tokens_;
  state_.train_flops = flops_before_ + session_flops_;  // NaN stays NaN
}

// What a checkpoint keeps of the log window (nothing right after a log point), so a run
// resumed from it logs the same rows as an uninterrupted one.
LogWindowState TrainingSession::window_state(const DeviceMetrics::Reading& reading,
                                             bool just_logged) const {
  if (just_logged) return LogWindowState{};
  LogWindowState state{window_.tokens,    window_.updates,   window_.grad_norm_updates,
                       window_.skipped,   reading.smoothed,  reading.nll,
                       reading.grad_norm, NoiseScaleWindow{}};
  if (noise_) state.noise = noise_->window();
  return state;
}

// The checkpoint a resume starts from. The metric rows up to it reach the store first: a
// resume deletes the rows after its checkpoint and redoes them, so a kill between the two
// writes must find the rows, not the checkpoint, ahead. While the store refuses the rows
// (an outage), the previous checkpoint stays the resume point.
void TrainingSession::save_resume_point() {
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
  if (!link_kept_checkpoint(path))
    save_checkpoint(path, *model_, &*optimizer_, state_, config_yaml_);
  files_->record("checkpoint_last", path, state_.update, "checkpoint_previous");
}

// At an update that kept a checkpoint with the optimizer state, the resume point is a second
// name for that file: it holds the same state (kept after the validation, as the resume point
// is), but for the seconds its own write took, which the training time then leaves out -- and a
// second write of a Transformer-base checkpoint is 694 MiB and 1.5 s of serializing
// (bench/bench_checkpoint). False where there is none or the file system refuses a hard link.
// No recorded name is ever written again, so the two names never part (core/train/run_files.h).
bool TrainingSession::link_kept_checkpoint(const std::string& path) const {
  // Only one this session wrote: a kept checkpoint an earlier session left past its resume
  // point is that session's state, not this one's.
  if (!tc_.keep_checkpoint_optimizer || kept_now_ != state_.update) return false;
  std::error_code ec;
  std::filesystem::create_hard_link(files_->current(kept_checkpoint_kind(state_.update)), path, ec);
  return !ec;
}

// BLEU's score and signature, and the test hypotheses it was computed on.
void TrainingSession::keep_bleu(const FinalEvaluation& final) {
  outcome_.final_metrics[db::metric::kDecodeTime] = final.decode_seconds;
  outcome_.final_metrics[db::metric::kTestBleu] = final.bleu->score;
  store_->set_tag(*lease_, "bleu_signature", final.bleu->signature);
  store_->set_tag(*lease_, "bleu", final.bleu->format());
  const std::string hypotheses_path = files_->name("test", std::nullopt, ".hyp");
  std::string text;
  for (const auto& line : final.hypotheses) text += line + "\n";
  // Checked: a short test.hyp beside a run recorded as finished would be a silent loss.
  write_file_or_throw(hypotheses_path, text, "the test hypotheses");
  files_->record("hypotheses", hypotheses_path, state_.update);
}

// Every validation and test example's NLL and tokens (valid.nll, test.nll): what `fathom
// compare` and reports resample to test two runs' perplexities against each other.
void TrainingSession::keep_segment_nll(const FinalEvaluation& final) {
  const std::pair<const std::vector<SegmentNll>*, const char*> splits[] = {
      {&final.valid_segments, "valid"}, {&final.test_segments, "test"}};
  for (const auto& [segments, split] : splits) {
    if (segments->empty()) continue;
    const std::string path = files_->name(split, std::nullopt, ".nll");
    write_file_or_throw(path, segment_nll_text(*segments),
                        std::string("the ") + split + " set's NLL per segment");
    files_->record(std::string(split) + "_nll", path, state_.update);
  }
}

}  // namespace fathom
