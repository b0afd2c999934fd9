#pragma once
// One session of one run: what train_run's steps share (core/train/trainer.cpp calls them). The
// steps, in order: hold (take the run), load_data, build_model, resume, start_loop, then per
// update serve_stop_request, one_update and after_update (log, keep, validate, checkpoint), then
// finish (the final evaluation). Members are declared in the order they come to exist, so they
// are torn down in reverse (the metric writer flushes before the stream's thread stops; the
// heartbeat outlives everything that writes under the lease).
//
// A data-parallel run (docs/distributed.md) has one session per rank. Rank 0 is the run's only
// writer: it holds the lease, logs, validates, checkpoints and evaluates. The other ranks (no
// store) train their share of every update and stop where rank 0 does.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/config/config.h"
#include "base/util/progress.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/model/transformer.h"
#include "core/train/batch_stream.h"
#include "core/train/budget_readings.h"
#include "core/train/checkpoint.h"
#include "core/train/device_metrics.h"
#include "core/train/evaluate.h"
#include "core/train/final_evaluation.h"
#include "core/train/gradient_reduce.h"
#include "core/train/graphed_updates.h"
#include "core/train/loss_scaler.h"
#include "core/train/noise_scale_monitor.h"
#include "core/train/optimizer.h"
#include "core/train/precision.h"
#include "core/train/probes.h"
#include "core/train/run_files.h"
#include "core/train/sharpness.h"
#include "core/train/system_metrics.h"
#include "core/train/trainer.h"
#include "core/train/training_flops.h"
#include "db/heartbeat.h"
#include "db/metric_writer.h"
#include "db/store.h"

namespace fathom {

class TrainingSession {
 public:
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  // `store`: the run's store; null on a data-parallel rank other than 0 (it writes nothing).
  TrainingSession(const RunConfig& config, db::Store* store, const TrainOptions& options);

  const PrecisionPlan& precision() const { return precision_; }

  // The run's holder (db/lease.h): every write below is fenced by the lease. A worker holds the
  // run from its launcher's claim; otherwise the run is taken here -- a resumed one only once
  // its checkpoint has loaded (resume()), so an unreadable one leaves the run as it was.
  void hold_unless_resuming();
  // Between these phases a stop request ends the session (core/train/stop_request.h); so does a
  // lost lease. The outcome of such a stop: nothing trained in this session.
  std::optional<TrainOutcome> stopped_before(const char* next);
  // Loading may prepare the corpus (minutes on a large one): a stop request ends it between
  // chunks, the chunks done kept for the next session.
  std::optional<TrainOutcome> load_data();
  void build_model();
  // A resumed run's checkpoint, the run's tags, a fresh run's data-dependent initialization;
  // then rank 0 hands the other ranks the model, optimizer and trainer state it starts from.
  void resume();
  void start_loop();
  // Until train.max_updates, or train.patience validations without a new best (early_stop.h).
  bool updates_left() const {
    return state_.update < tc_.max_updates && !patience_exhausted(state_.validation, tc_.patience);
  }
  // A stop request at an update boundary -- or, `abandoned`, one that cut the next update
  // short (one_update's nullopt) -- ends the session with a checkpoint of the updates done.
  std::optional<TrainOutcome> serve_stop_request(bool abandoned = false);

  struct Update {
    int64_t number = 0, tokens = 0;
    double lr = 0;
    double flops = 0;  // every rank's batches (core/train/training_flops.h)
  };
  // nullopt: abandoned for a stop request inside its forward or backward, nothing applied.
  std::optional<Update> one_update();
  std::optional<TrainOutcome> after_update(const Update& u);
  TrainOutcome finish();
  // A rank other than 0 once every update is done: its share of the final evaluation, which
  // rank 0 scores and records.
  TrainOutcome follower_done();

 private:
  bool writes() const { return store_ != nullptr; }
  int rank() const;
  void beat();
  void hold();
  void between_phases(const char* next);
  void share_state();    // rank 0, after resume(): the state every rank starts from
  void receive_state();  // the other ranks
  // This rank's share of the update's forward and backward passes; its loss sums.
  std::pair<torch::Tensor, torch::Tensor> forward_backward(const std::vector<Batch>& parts,
                                                           int64_t tokens);
  bool forward_backward_unless_stopped(const std::vector<Batch>& parts, int64_t tokens,
                                       torch::Tensor& smoothed, torch::Tensor& nll);
  std::optional<DeviceMetrics::Reading> read_metrics(bool reset_window);
  void log(const Update& u, const DeviceMetrics::Reading& reading);
  void log_noise_scale(int64_t update);
  void log_probes(int64_t update);
  void log_sharpness(int64_t update);
  void keep_checkpoint(int64_t update, const DeviceMetrics::Reading& reading, bool just_logged);
  std::optional<std::vector<std::string>> retired_checkpoints(int64_t update) const;
  LossReport validation_loss();
  LossReport log_validation(int64_t update);
  void validate_at_init();
  void validate(int64_t update);
  // What train.best_metric is at this validation; nullopt where it is valid_bleu and a stop cut
  // the decode short (the resume decodes it and decides then).
  std::optional<double> best_metric_value(const LossReport& valid,
                                          const std::optional<double>& bleu) const;
  // Counts a validation's best_metric value for checkpoint_best and train.patience (every
  // rank); rank 0 keeps a new best as checkpoint_best.
  void record_best(int64_t update, double value);
  void stop_early();  // records why train.patience ended training
  void keep_valid_samples(int64_t update);
  // The valid_bleu decode at `update`, every rank its share (in rank 0's order); rank 0 logs.
  // Returns the score -- on every rank where train.best_metric is valid_bleu, which every rank
  // counts patience on; else on rank 0 -- or nullopt where a stop cut the decode short.
  std::optional<double> log_valid_bleu(int64_t update);
  // True when the pending point's valid_bleu, the best metric, ran train.patience out.
  bool decode_pending_valid_bleu();
  // The flag a phase checks for a stop request: with ranks, the one relayed to every rank.
  const std::atomic<bool>* stop_flag() const;
  void count_training();
  LogWindowState window_state(const DeviceMetrics::Reading& reading, bool just_logged) const;
  void save_resume_point();
  bool link_kept_checkpoint(const std::string& path) const;
  void keep_bleu(const FinalEvaluation& final);
  void keep_segment_nll(const FinalEvaluation& final);
  void load_final_model();

  // What the host knows of the updates since the last log line (the loss sums stay on the
  // device, core/train/device_metrics.h).
  struct Window {
    int64_t tokens = 0, updates = 0;
    int64_t grad_norm_updates = 0;      // updates not skipped by the loss scaler
    int64_t skipped = 0;                // updates skipped by the loss scaler (fp16)
    double reduce_seconds = 0;          // waiting for the ranks' all-reduce (a data-parallel run)
    double reduce_overlap_seconds = 0;  // all-reduce running while the backward ran
    Clock::time_point start = Clock::now();
    void reset() { *this = Window(); }
  };

  const RunConfig& config_;
  const TrainConfig& tc_;
  const BestMetric best_metric_;  // train.best_metric
  db::Store* store_;
  const TrainOptions& options_;
  const int64_t run_;
  const torch::Device device_;
  const PrecisionPlan precision_;
  Tf32Scope tf32_{precision_};  // train.precision: tf32 while the session lives
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
  BatchShapes plan_shapes_;  // of plan_: the tag data.batches, train.cuda_graphs' note
  std::optional<PrefetchingBatchStream> stream_;
  std::optional<DeviceMetrics> device_metrics_;
  std::optional<LossScaler> scaler_;
  std::optional<GradientReducer> reducer_;  // a data-parallel run
  std::optional<NoiseScaleMonitor> noise_;  // train.noise_scale
  bool stop_agreed_ = false;                // some rank asked to stop (reduced each update)
  std::optional<db::MetricWriter> metrics_;
  std::optional<ProgressBar> bar_;
  std::optional<TrainingProbes> probes_;       // train.probe_every > 0
  std::optional<SharpnessTracker> sharpness_;  // train.sharpness_every > 0
  std::optional<GraphedUpdates> graphs_;       // train.cuda_graphs
  TrainOutcome outcome_;
  std::map<int64_t, double> best_metric_at_;  // this session's train.best_metric validations
  int64_t kept_now_ = -1;                     // the update of the checkpoint this session kept last
  Window window_;
  int64_t session_first_update_ = 1;
  double last_logged_loss_ = NAN;  // what the progress bar shows between log points
  Clock::time_point train_start_;
  int64_t session_tokens_ = 0;
  double seconds_before_ = 0;  // earlier sessions' training time and tokens (the checkpoint's)
  int64_t tokens_before_ = 0;
  FlopRates flop_rates_;
  double session_flops_ = 0;
  double flops_before_ = 0;  // NaN: a checkpoint from before compute was counted
  BudgetReadings budget_readings_{tc_.valid_at, tc_.valid_every_flops};  // train.valid_at
};

}  // namespace fathom
