// Every computed analysis (analysis/, LibTorch) has its kind outside the training core
// (plot/analysis_kinds.h: figures, tables, the desktop app's list), and no kind lacks a
// computation: the two registrations of an analysis cannot drift apart.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/registry.h"

#ifdef FATHOM_HAVE_PLOTS
#include "core/util/error.h"
#include "plot/analysis_kinds.h"

TEST(AnalysisKinds, MatchTheComputedAnalyses) {
  std::set<std::string> computed, kinds;
  for (const auto& [name, analysis] : fathom::analysis::analyses()) computed.insert(name);
  for (const auto& kind : fathom::plot::analysis_kinds()) {
    kinds.insert(kind.name);
    const auto& analysis = fathom::analysis::find_analysis(kind.name);
    EXPECT_EQ(kind.builds_own_models, analysis.takes_many_configs) << kind.name;
    EXPECT_TRUE(kind.figures) << kind.name;
  }
  EXPECT_EQ(kinds, computed);
  EXPECT_THROW(fathom::plot::find_analysis_kind("betta", "x"), fathom::InputError);
}
#else
TEST(AnalysisKinds, MatchTheComputedAnalyses) {
  GTEST_SKIP() << "fathom_plot is not built (no Qt 6): analysis kinds are not compiled";
}
#endif
