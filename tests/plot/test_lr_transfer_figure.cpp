// The learning-rate transfer figure (plot/lr_transfer_figure.h): best rate against depth on
// log-log axes, one curve per method with its slope in the legend, the 95 % interval as the
// band -- none where an optimum is unbracketed (the band collapses onto the point).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "plot/lr_transfer_figure.h"

namespace test_lr_transfer_figure {
using namespace fathom;

TEST(LrTransferFigure, BestRateAgainstDepthWithItsIntervalAndSlope) {
  experiments::LrTransfer t;
  t.metric = "valid_loss";
  t.depth_key = "model.decoder_layers";
  experiments::BestRate six, twelve;
  six.lr = 2e-3;
  six.bracketed = true;
  six.ci_lo = 1.5e-3;
  six.ci_hi = 3e-3;
  twelve.lr = 1e-3;  // at an end of its grid: no interval
  twelve.ci_lo = twelve.ci_hi = std::numeric_limits<double>::quiet_NaN();
  t.rows = {{"pre", 6, six}, {"pre", 12, twelve}};
  experiments::TransferSlope slope;
  slope.method = "pre";
  slope.depths = 2;
  slope.slope = -1;
  slope.bracketed = false;
  t.slopes = {slope};
  const plot::CurveFigure f = plot::lr_transfer_figure(t);
  EXPECT_EQ(f.x.scale, plot::Scale::Log);
  EXPECT_EQ(f.y.scale, plot::Scale::Log);
  EXPECT_EQ(f.x.label, "decoder_layers");
  EXPECT_EQ(f.band, "ci95");
  ASSERT_EQ(f.curves.size(), 1u);
  const auto& c = f.curves[0];
  EXPECT_EQ(c.label, "pre (slope -1.00, an optimum unbracketed)");
  EXPECT_EQ(c.step, (std::vector<double>{6, 12}));
  EXPECT_EQ(c.value, (std::vector<double>{2e-3, 1e-3}));
  EXPECT_EQ(c.band_lo, (std::vector<double>{1.5e-3, 1e-3}));
  EXPECT_EQ(c.band_hi, (std::vector<double>{3e-3, 1e-3}));
}

}  // namespace test_lr_transfer_figure
