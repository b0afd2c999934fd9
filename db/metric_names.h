#pragma once
// The metrics a run records (docs/schema.md): the names of its curves (metrics table) and
// final values (final_metrics), one vocabulary for the trainer that writes them and the
// scheduler, tables, reports, CLI and desktop app that read them -- a misspelt name is a
// compile error rather than a column that is silently empty. How each is shown and which way
// is better: db/metric_presentation.h.
#include <string>
#include <vector>

namespace fathom::db::metric {

// Curves, logged every train.log_every updates (train_*, lr, grad_norm, tokens_per_s,
// target_tokens) or at each validation (valid_*). train_loss and valid_* also end up final.
inline const std::string kTrainLoss = "train_loss";
inline const std::string kTrainNll = "train_nll";  // per target token
inline const std::string kTrainPpl = "train_ppl";
inline const std::string kValidLoss = "valid_loss";
inline const std::string kValidNll = "valid_nll";  // per target token
inline const std::string kValidPpl = "valid_ppl";
inline const std::string kValidBleu = "valid_bleu";
// Language models on text (data.task lm): summed NLL / (ln 2 x UTF-8 bytes), comparable across
// vocabularies (core/data/lm_text.h).
inline const std::string kValidBpb = "valid_bpb";
inline const std::string kLearningRate = "lr";
inline const std::string kGradNorm = "grad_norm";
inline const std::string kTokensPerSecond = "tokens_per_s";  // also final: the whole run's rate
inline const std::string kTargetTokens = "target_tokens";    // cumulative, over every session
// Training compute so far, cumulative over every session (core/train/training_flops.h): the
// curves' x axis "compute"; also final: the whole run's.
inline const std::string kTrainFlops = "train_flops";
// A data-parallel run (train.processes > 1), seconds per update: waiting for the ranks'
// gradient all-reduce after the backward (the slowest rank included), and how long buckets
// were already reducing while the backward still ran (train.reduce_overlap; docs/distributed.md).
inline const std::string kAllReduceSeconds = "allreduce_s";
inline const std::string kAllReduceOverlapSeconds = "allreduce_overlap_s";
// fp16 only (the loss scaler): its scale, and the updates it skipped in the log window.
inline const std::string kLossScale = "loss_scale";
inline const std::string kSkippedUpdates = "skipped_updates";
// Every train.grad_norm_every updates: one curve per layer, "gradnorm.<layer>" (methods.md s5.3).
inline const std::string kLayerGradNormPrefix = "gradnorm.";
// train.noise_scale, at each log point over the window's updates (core/train/noise_scale_monitor.h,
// methods.md s5.12): B_simple in target tokens with its >= 95 % interval (no row where it is
// open), the means of the per-update estimates of tr(Sigma) and |G|^2 with their standard
// errors, and how many updates gave one -- what pools windows exactly.
inline const std::string kNoisePrefix = "noise.";
inline const std::string kNoiseBSimple = "noise.b_simple";
inline const std::string kNoiseBSimpleLow = "noise.b_simple_low";
inline const std::string kNoiseBSimpleHigh = "noise.b_simple_high";
inline const std::string kNoiseTrace = "noise.trace";
inline const std::string kNoiseTraceSe = "noise.trace_se";
inline const std::string kNoiseGradSq = "noise.grad_sq";
inline const std::string kNoiseGradSqSe = "noise.grad_sq_se";
inline const std::string kNoiseUpdates = "noise.updates";
// Every train.probe_every updates (core/train/probes.h; the per-layer probes go to the
// probe tables): log Z of the output logits over the probe batch's target tokens, and
// Admin's relative output change |F(x, W_t) - F(x, W_t-1)| / |F(x, W_t-1)| of the update.
inline const std::string kProbeLogZMean = "probe.log_z_mean";
inline const std::string kProbeLogZMax = "probe.log_z_max";
inline const std::string kProbeOutputChange = "probe.output_change";
// Every train.sharpness_every updates (core/train/sharpness.h, docs/curvature.md): the top
// eigenvalue of the training loss's Hessian on a fixed training batch; under Adam (RAdam) that
// of the preconditioned Hessian P^-1 H, and eta * lambda_max(P^-1 H) over Adam's stability
// threshold (2 + 2 beta1) / (1 - beta1) -- 1 at the adaptive edge of stability; and the
// Hessian-vector products the point took.
inline const std::string kCurvaturePrefix = "curvature.";
inline const std::string kSharpness = "curvature.sharpness";
inline const std::string kPreconditionedSharpness = "curvature.preconditioned_sharpness";
inline const std::string kEdgeOfStabilityRatio = "curvature.aeos_ratio";
inline const std::string kSharpnessProducts = "curvature.products";

// System metrics (core/train/system_metrics.h), sampled at each log point: what the run costs
// the machine. Not deterministic -- comparisons of a run with its resumed or repeated twin
// compare their rows' names and updates, not these values (is_system_metric).
inline const std::string kSystemPrefix = "sys.";
inline const std::string kSysCpuPercent = "sys.cpu_percent";  // of one core, since the last
inline const std::string kSysRss = "sys.rss_mib";             // resident memory now
inline const std::string kSysRssPeak = "sys.rss_peak_mib";    // its high-water mark
inline const std::string kSysThreads = "sys.threads";
// CUDA only: LibTorch's caching allocator -- bytes held by live tensors, and reserved from
// the driver (what the process keeps, including its cache).
inline const std::string kSysCudaAllocated = "sys.cuda_allocated_mib";
inline const std::string kSysCudaReserved = "sys.cuda_reserved_mib";
// Where the NVIDIA management library is found at run time (base/util/nvml.h): the device's
// utilisation, its memory in use by every process, and its board power.
inline const std::string kSysGpuUtil = "sys.gpu_util_percent";
inline const std::string kSysGpuMemory = "sys.gpu_memory_mib";
inline const std::string kSysGpuPower = "sys.gpu_power_w";
inline bool is_system_metric(const std::string& name) { return name.rfind(kSystemPrefix, 0) == 0; }

// Final values only.
inline const std::string kTestLoss = "test_loss";
inline const std::string kTestPpl = "test_ppl";
inline const std::string kTestBleu = "test_bleu";
inline const std::string kTestBpb = "test_bpb";
inline const std::string kTrainTime = "train_time_s";  // summed over every session of the run
inline const std::string kTrainTokens = "train_tokens";
inline const std::string kDecodeTime = "decode_time_s";
inline const std::string kParams = "params";

// What measures the machine rather than the model: timings, throughput and the system
// metrics. They differ between two runs of one computation, so comparisons of a run with its
// resumed, repeated or reproduced twin leave their values out (experiments/run_agreement.h).
inline bool measures_the_machine(const std::string& name) {
  return is_system_metric(name) || name == kTokensPerSecond || name == kTrainTime ||
         name == kDecodeTime || name == kAllReduceSeconds || name == kAllReduceOverlapSeconds;
}

// The curves whose spikes are looked for (base/metrics/spikes.h): `fathom show` lists them, the
// dashboard and exported curves mark them.
inline const std::vector<std::string>& spike_metrics() {
  static const std::vector<std::string> names = {kTrainLoss, kGradNorm};
  return names;
}
inline bool is_spike_metric(const std::string& name) {
  return name == kTrainLoss || name == kGradNorm;
}

}  // namespace fathom::db::metric

namespace fathom::db {
// Run tags samples.u<update>: at each validation, a JSON array of the first
// train.valid_samples validation pairs as {"source", "reference", "hypothesis"} (greedy).
inline const std::string kSamplesTagPrefix = "samples.u";
}  // namespace fathom::db
