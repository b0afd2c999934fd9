// The metric presentation table (db/metric_presentation.h): what the dashboard shows by default
// and smooths, the report's log axes, units, which way is better -- for the metrics a run
// records, a family of names, and names no row lists. Expected values are written out by hand
// from what the readers did before the table (the dashboard's and reports' own rules).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "db/metric_names.h"
#include "db/metric_presentation.h"

namespace fathom {
namespace test_metric_presentation {
using db::metric::presentation_of;
using db::metric::presentation_rank;

// ... and the noise scale B_simple, which only a run trained with train.noise_scale logs.
TEST(MetricPresentation, TheDashboardShowsTheTrainingCurvesAndEveryBleuByDefault) {
  std::set<std::string> shown;
  for (const auto& row : db::metric::presented_metrics())
    if (row.presentation.shown) shown.insert(row.name);
  EXPECT_EQ(shown, (std::set<std::string>{"train_loss", "train_ppl", "valid_ppl", "lr", "grad_norm",
                                          "valid_bleu", "test_bleu", "noise.b_simple"}));
  EXPECT_TRUE(presentation_of("dev_bleu").shown);  // by its name's parts
  EXPECT_FALSE(presentation_of("gradnorm.enc.0.ffn").shown);
  EXPECT_FALSE(presentation_of("my_metric").shown);
}

TEST(MetricPresentation, EvaluationsAndTheScheduleAreDrawnUnsmoothed) {
  for (const char* name : {"lr", "valid_loss", "valid_ppl", "valid_bleu", "valid_bpb", "test_loss",
                           "dev_bleu", "valid_accuracy"})
    EXPECT_FALSE(presentation_of(name).smoothed) << name;
  for (const char* name : {"train_loss", "train_ppl", "grad_norm", "tokens_per_s",
                           "gradnorm.dec.1.self_attn", "probe.log_z_mean", "my_metric"})
    EXPECT_TRUE(presentation_of(name).smoothed) << name;
}

TEST(MetricPresentation, WhichWayIsBetterLogAxesAndUnits) {
  EXPECT_EQ(db::metric::higher_is_better("valid_bleu"), true);
  EXPECT_EQ(db::metric::higher_is_better("test_ppl"), false);
  EXPECT_EQ(db::metric::higher_is_better("valid_bpb"), false);
  EXPECT_EQ(db::metric::higher_is_better("dev_accuracy"), true);  // by parts
  EXPECT_EQ(db::metric::higher_is_better("dev_nll"), false);      // by parts
  // A loss scale is a setting of fp16 training, not a loss: no better direction.
  EXPECT_FALSE(db::metric::higher_is_better("loss_scale").has_value());
  EXPECT_FALSE(db::metric::higher_is_better("grad_norm").has_value());
  EXPECT_FALSE(db::metric::higher_is_better("params").has_value());
  EXPECT_TRUE(presentation_of("valid_ppl").log_axis);  // the report's curves of it
  EXPECT_FALSE(presentation_of("valid_loss").log_axis);
  EXPECT_EQ(presentation_of("tokens_per_s").unit, "tokens/s");
  EXPECT_EQ(presentation_of("train_time_s").unit, "s");
  EXPECT_EQ(presentation_of("valid_ppl").unit, "");
}

TEST(MetricPresentation, ListsPutTheTrainingCurvesFirstAndUnknownNamesLast) {
  EXPECT_LT(presentation_rank("train_loss"), presentation_rank("train_ppl"));
  EXPECT_LT(presentation_rank("train_ppl"), presentation_rank("valid_loss"));
  EXPECT_LT(presentation_rank("valid_ppl"), presentation_rank("lr"));
  EXPECT_LT(presentation_rank("lr"), presentation_rank("grad_norm"));
  EXPECT_LT(presentation_rank("grad_norm"), presentation_rank("tokens_per_s"));
  const int last = static_cast<int>(db::metric::presented_metrics().size());
  EXPECT_EQ(presentation_rank("my_metric"), last);
  EXPECT_EQ(presentation_rank("gradnorm.enc.3.ffn"), presentation_rank("gradnorm.enc.0.ffn"));
  EXPECT_LT(presentation_rank("gradnorm.enc.3.ffn"), last);
}

// Every curve and final value a run records has its own row (db/metric_names.h).
TEST(MetricPresentation, EveryRecordedMetricHasARow) {
  std::set<std::string> rows;
  for (const auto& row : db::metric::presented_metrics())
    EXPECT_TRUE(rows.insert(row.name).second) << "two rows for " << row.name;
  namespace m = db::metric;
  for (const std::string& name : {m::kTrainLoss,
                                  m::kTrainNll,
                                  m::kTrainPpl,
                                  m::kValidLoss,
                                  m::kValidNll,
                                  m::kValidPpl,
                                  m::kValidBleu,
                                  m::kValidBpb,
                                  m::kLearningRate,
                                  m::kGradNorm,
                                  m::kTokensPerSecond,
                                  m::kTargetTokens,
                                  m::kLossScale,
                                  m::kSkippedUpdates,
                                  m::kLayerGradNormPrefix,
                                  m::kProbeLogZMean,
                                  m::kProbeLogZMax,
                                  m::kProbeOutputChange,
                                  m::kSharpness,
                                  m::kPreconditionedSharpness,
                                  m::kEdgeOfStabilityRatio,
                                  m::kSharpnessProducts,
                                  m::kTestLoss,
                                  m::kTestPpl,
                                  m::kTestBleu,
                                  m::kTestBpb,
                                  m::kTrainTime,
                                  m::kTrainTokens,
                                  m::kDecodeTime,
                                  m::kParams,
                                  m::kNoiseBSimple,
                                  m::kNoiseBSimpleLow,
                                  m::kNoiseBSimpleHigh,
                                  m::kNoiseUpdates,
                                  m::kSysCpuPercent,
                                  m::kSysRss,
                                  m::kSysRssPeak,
                                  m::kSysThreads,
                                  m::kSysCudaAllocated,
                                  m::kSysCudaReserved,
                                  m::kSysGpuUtil,
                                  m::kSysGpuMemory,
                                  m::kSysGpuPower,
                                  m::kSystemPrefix})
    EXPECT_TRUE(rows.count(name)) << name;
}

// The system metrics sit together, after the training curves, in a "System" group; an
// unknown sys.* name joins them by its prefix.
TEST(MetricPresentation, SystemMetricsFormTheirOwnGroupAfterTheCurves) {
  namespace m = db::metric;
  EXPECT_EQ(m::metric_group(m::kSysRss), "System");
  EXPECT_EQ(m::metric_group("sys.disk_mib"), "System");
  EXPECT_EQ(m::metric_group(m::kTrainLoss), "");
  EXPECT_EQ(m::metric_group("system_loss"), "");  // the prefix is "sys.", dot included
  // The sharpness curves (docs/curvature.md) form theirs, before the system metrics.
  EXPECT_EQ(m::metric_group(m::kEdgeOfStabilityRatio), "Curvature");
  EXPECT_EQ(m::metric_group("curvature.trace"), "Curvature");
  EXPECT_LT(presentation_rank(m::kSharpnessProducts), presentation_rank(m::kSysCpuPercent));
  // train.noise_scale's rows theirs, between the two; B_simple on a log axis in tokens, shown
  // (only runs that asked for it log it), its parts hidden.
  EXPECT_EQ(m::metric_group(m::kNoiseBSimple), "Noise scale");
  EXPECT_EQ(m::metric_group(m::kNoiseTraceSe), "Noise scale");
  EXPECT_LT(presentation_rank(m::kSharpnessProducts), presentation_rank(m::kNoiseBSimple));
  EXPECT_LT(presentation_rank(m::kNoiseGradSqSe), presentation_rank(m::kSysCpuPercent));
  EXPECT_TRUE(m::presentation_of(m::kNoiseBSimple).shown);
  EXPECT_TRUE(m::presentation_of(m::kNoiseBSimple).log_axis);
  EXPECT_FALSE(m::presentation_of(m::kNoiseTrace).shown);
  EXPECT_LT(presentation_rank(m::kProbeOutputChange), presentation_rank(m::kSysCpuPercent));
  EXPECT_LT(presentation_rank(m::kSysGpuPower), presentation_rank("sys.disk_mib"));
  EXPECT_LT(presentation_rank("sys.disk_mib"), presentation_rank(m::kTestLoss));
  EXPECT_FALSE(m::presentation_of(m::kSysRss).shown);
  EXPECT_EQ(m::presentation_of(m::kSysRssPeak).unit, "MiB");
  EXPECT_FALSE(m::higher_is_better(m::kSysCpuPercent).has_value());
}

}  // namespace test_metric_presentation
}  // namespace fathom
