#include "db/metric_presentation.h"

#include "db/metric_names.h"

namespace fathom::db::metric {
namespace {

constexpr bool kShown = true, kHidden = false;
constexpr bool kSmoothed = true, kAsIs = false;
constexpr bool kLog = true, kLinear = false;
constexpr std::optional<bool> kUp = true, kDown = false, kNeither = std::nullopt;
constexpr bool kCount = true;  // whole_numbers

// By the name's parts, for names no row lists (see presentation_of).
MetricPresentation by_parts(const std::string& name) {
  auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
  const bool bleu = has("bleu");
  MetricPresentation p;
  p.shown = bleu;
  p.smoothed = !(bleu || name.rfind("valid_", 0) == 0 || name.rfind("test_", 0) == 0);
  if (bleu || has("acc"))
    p.higher_is_better = true;
  else if (has("loss") || has("ppl") || has("nll") || has("bpb"))
    p.higher_is_better = false;
  return p;
}

}  // namespace

const std::vector<PresentedMetric>& presented_metrics() {
  static const std::vector<PresentedMetric> rows = {
      // name: {shown, smoothed, axis, unit, better}
      {kTrainLoss, {kShown, kSmoothed, kLinear, "nats", kDown}},
      {kTrainPpl, {kShown, kSmoothed, kLog, "", kDown}},
      {kValidLoss, {kHidden, kAsIs, kLinear, "nats", kDown}},
      {kValidPpl, {kShown, kAsIs, kLog, "", kDown}},
      {kLearningRate, {kShown, kAsIs, kLinear, "", kNeither}},
      {kGradNorm, {kShown, kSmoothed, kLinear, "", kNeither}},
      {kValidBleu, {kShown, kAsIs, kLinear, "BLEU", kUp}},
      {kValidBpb, {kHidden, kAsIs, kLinear, "bits/byte", kDown}},
      {kTrainNll, {kHidden, kSmoothed, kLinear, "nats/token", kDown}},
      {kValidNll, {kHidden, kAsIs, kLinear, "nats/token", kDown}},
      {kTokensPerSecond, {kHidden, kSmoothed, kLinear, "tokens/s", kNeither}},
      {kTargetTokens, {kHidden, kSmoothed, kLinear, "tokens", kNeither}},
      {kTrainFlops, {kHidden, kAsIs, kLinear, "FLOPs", kNeither}},
      {kAllReduceSeconds, {kHidden, kSmoothed, kLinear, "s", kNeither}},
      {kAllReduceOverlapSeconds, {kHidden, kSmoothed, kLinear, "s", kNeither}},
      {kLossScale, {kHidden, kSmoothed, kLog, "", kNeither}},
      {kSkippedUpdates, {kHidden, kSmoothed, kLinear, "updates", kNeither, kCount}},
      {kLayerGradNormPrefix, {kHidden, kSmoothed, kLinear, "", kNeither}},
      {kProbeLogZMean, {kHidden, kSmoothed, kLinear, "nats", kNeither}},
      {kProbeLogZMax, {kHidden, kSmoothed, kLinear, "nats", kNeither}},
      {kProbeOutputChange, {kHidden, kSmoothed, kLog, "", kNeither}},
      {kSharpness, {kHidden, kAsIs, kLinear, "", kNeither}},
      {kPreconditionedSharpness, {kHidden, kAsIs, kLinear, "", kNeither}},
      {kEdgeOfStabilityRatio, {kHidden, kAsIs, kLinear, "", kNeither}},
      {kSharpnessProducts, {kHidden, kAsIs, kLinear, "products", kNeither, kCount}},
      // train.noise_scale: shown where a run logged it (only runs that asked for it do).
      {kNoiseBSimple, {kShown, kAsIs, kLog, "target tokens", kNeither}},
      {kNoiseBSimpleLow, {kHidden, kAsIs, kLog, "target tokens", kNeither}},
      {kNoiseBSimpleHigh, {kHidden, kAsIs, kLog, "target tokens", kNeither}},
      {kNoiseUpdates, {kHidden, kAsIs, kLinear, "updates", kNeither, kCount}},
      {kNoisePrefix, {kHidden, kAsIs, kLinear, "", kNeither}},
      {kSysCpuPercent, {kHidden, kAsIs, kLinear, "% of a core", kNeither}},
      {kSysRss, {kHidden, kAsIs, kLinear, "MiB", kNeither}},
      {kSysRssPeak, {kHidden, kAsIs, kLinear, "MiB", kNeither}},
      {kSysThreads, {kHidden, kAsIs, kLinear, "threads", kNeither, kCount}},
      {kSysCudaAllocated, {kHidden, kAsIs, kLinear, "MiB", kNeither}},
      {kSysCudaReserved, {kHidden, kAsIs, kLinear, "MiB", kNeither}},
      {kSysGpuUtil, {kHidden, kAsIs, kLinear, "%", kNeither}},
      {kSysGpuMemory, {kHidden, kAsIs, kLinear, "MiB", kNeither}},
      {kSysGpuPower, {kHidden, kAsIs, kLinear, "W", kNeither}},
      {kSystemPrefix, {kHidden, kAsIs, kLinear, "", kNeither}},
      {kTestLoss, {kHidden, kAsIs, kLinear, "nats", kDown}},
      {kTestPpl, {kHidden, kAsIs, kLog, "", kDown}},
      {kTestBleu, {kShown, kAsIs, kLinear, "BLEU", kUp}},
      {kTestBpb, {kHidden, kAsIs, kLinear, "bits/byte", kDown}},
      {kTrainTime, {kHidden, kAsIs, kLinear, "s", kNeither}},
      {kTrainTokens, {kHidden, kAsIs, kLinear, "tokens", kNeither}},
      {kDecodeTime, {kHidden, kAsIs, kLinear, "s", kNeither}},
      {kParams, {kHidden, kAsIs, kLinear, "parameters", kNeither}},
  };
  return rows;
}

int presentation_rank(const std::string& name) {
  const auto& rows = presented_metrics();
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string& row = rows[i].name;
    if (row == name || (row.back() == '.' && name.rfind(row, 0) == 0)) return static_cast<int>(i);
  }
  return static_cast<int>(rows.size());
}

MetricPresentation presentation_of(const std::string& name) {
  const size_t rank = static_cast<size_t>(presentation_rank(name));
  const auto& rows = presented_metrics();
  return rank < rows.size() ? rows[rank].presentation : by_parts(name);
}

std::string metric_group(const std::string& name) {
  if (is_system_metric(name)) return "System";
  if (name.rfind(kNoisePrefix, 0) == 0) return "Noise scale";
  return name.rfind(kCurvaturePrefix, 0) == 0 ? "Curvature" : "";
}

std::optional<bool> higher_is_better(const std::string& name) {
  return presentation_of(name).higher_is_better;
}

}  // namespace fathom::db::metric
