// Hyperparameter importance (experiments/hparam_importance.h) against decompositions worked by
// hand: a 2 x 2 grid with an interaction, a 3-axis grid built from known effects, an additive
// grid with settings filled, and the refusals (too few settings to fill, nothing swept).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "experiments/hparam_importance.h"

namespace test_hparam_importance {
using fathom::experiments::hparam_importance;
using fathom::experiments::TableRun;

TableRun run(std::map<std::string, std::string> axes, double value) {
  TableRun r;
  r.status = "finished";
  r.axes = std::move(axes);
  r.metric = value;
  return r;
}

double share_of(const fathom::experiments::HparamImportance& h, std::vector<std::string> axes) {
  for (const auto& t : h.terms)
    if (t.axes == axes) return t.share;
  ADD_FAILURE() << "no term";
  return NAN;
}

// Cells m(norm, lr): (post, 1e-3) = 0, (pre, 1e-3) = 2, (post, 2e-3) = 1, (pre, 2e-3) = 5, two
// seeds each at m -+ 0.5. By hand: mu = 2; f_norm = -+1.5, V_norm = 2.25; f_lr = -+1,
// V_lr = 1; f_norm,lr = +-0.5, V = 0.25; V = mean of (-2, 0, -1, 3)^2 = 3.5 = 2.25 + 1 + 0.25.
// The seeds' population variance is 0.25 in every cell.
TEST(HparamImportance, ATwoByTwoGridWithAnInteractionByHand) {
  std::vector<TableRun> runs;
  const std::vector<std::tuple<std::string, std::string, double>> cells = {
      {"post", "1e-3", 0}, {"pre", "1e-3", 2}, {"post", "2e-3", 1}, {"pre", "2e-3", 5}};
  for (const auto& [norm, lr, m] : cells)
    for (int seed : {1, 2})
      runs.push_back(
          run({{"model.norm", norm}, {"train.lr", lr}, {"train.seed", std::to_string(seed)}},
              m + (seed == 1 ? -0.5 : 0.5)));
  const auto h = hparam_importance(runs, "valid_loss");
  EXPECT_EQ(h.cells, 4);
  EXPECT_EQ(h.runs, 8);
  EXPECT_DOUBLE_EQ(h.total_variance, 3.5);
  EXPECT_NEAR(share_of(h, {"model.norm"}), 2.25 / 3.5, 1e-12);
  EXPECT_NEAR(share_of(h, {"train.lr"}), 1.0 / 3.5, 1e-12);
  EXPECT_NEAR(share_of(h, {"model.norm", "train.lr"}), 0.25 / 3.5, 1e-12);
  EXPECT_NEAR(h.higher_order_share, 0, 1e-12);
  EXPECT_DOUBLE_EQ(h.seed_variance, 0.25);
  EXPECT_EQ(h.terms[0].axes, std::vector<std::string>{"model.norm"}) << "largest first";
}

// y = a_effect + b_effect + c_effect + ab_effect + abc_effect over a 3 x 2 x 2 grid, each effect
// centred by construction, so each V_S is the mean square of its own table and the shares add
// up to 1 with the three-way rest.
TEST(HparamImportance, ThreeAxesRecoverTheEffectsTheyWereBuiltFrom) {
  const std::vector<double> a = {-1, 0, 1};   // V_a = 2/3
  const std::vector<double> b = {-2, 2};      // V_b = 4
  const std::vector<double> c = {-0.5, 0.5};  // V_c = 1/4
  // ab: centred over a and over b; V_ab = 1/6. abc: +-0.1 alternating, centred on every pair.
  const double ab[3][2] = {{0.5, -0.5}, {-0.5, 0.5}, {0, 0}};
  std::vector<TableRun> runs;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) {
        const double abc = (i == 2 ? 0 : 0.1) * (((i + j + k) % 2) ? 1 : -1);
        runs.push_back(
            run({{"a", std::to_string(i)}, {"b", std::to_string(j)}, {"c", std::to_string(k)}},
                10 + a[i] + b[j] + c[k] + ab[i][j] + abc));
      }
  const auto h = hparam_importance(runs, "valid_loss");
  // abc over the 12 cells: 8 of them +-0.1 -> mean square 8 * 0.01 / 12.
  const double v_abc = 8 * 0.01 / 12;
  const double v = 2.0 / 3 + 4 + 0.25 + (4 * 0.25) / 6 + v_abc;
  EXPECT_NEAR(h.total_variance, v, 1e-12);
  EXPECT_NEAR(share_of(h, {"b"}), 4 / v, 1e-12);
  EXPECT_NEAR(share_of(h, {"a"}), (2.0 / 3) / v, 1e-12);
  EXPECT_NEAR(share_of(h, {"a", "b"}), (1.0 / 6) / v, 1e-12);
  EXPECT_NEAR(share_of(h, {"a", "c"}), 0, 1e-12);
  EXPECT_NEAR(h.higher_order_share, v_abc / v, 1e-12);
}

// Two settings of a 2 x 2 grid (the diagonal) cannot determine the 3 unknowns of the main
// effects that would fill the other two: refused, naming the first.
TEST(HparamImportance, AGridTooSparseToFillIsNamedAndNothingSweptIsRefused) {
  std::vector<TableRun> runs = {run({{"model.norm", "post"}, {"train.lr", "1e-3"}}, 1),
                                run({{"model.norm", "pre"}, {"train.lr", "2e-3"}}, 3)};
  TableRun diverged = run({{"model.norm", "post"}, {"train.lr", "2e-3"}}, 0);
  diverged.metric.reset();
  runs.push_back(diverged);
  try {
    hparam_importance(runs, "valid_loss");
    FAIL() << "filled a grid its settings cannot determine";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "--metric");
    EXPECT_NE(std::string(e.what()).find("no run of model.norm=post, train.lr=2e-3 has a value of "
                                         "valid_loss; 2 of 4 settings have one, fewer than the 3"),
              std::string::npos)
        << e.what();
  }
  // With the third setting measured the fit is determined: the fourth is filled additively
  // (post 1, 2; pre 3 -> pre at 1e-3 is 2).
  runs.push_back(run({{"model.norm", "pre"}, {"train.lr", "1e-3"}}, 0));
  runs.back().metric.reset();
  runs[2].metric = 2;
  const auto h = hparam_importance(runs, "valid_loss");
  EXPECT_EQ(h.filled, 1);
  // Cells 1, 2, 2, 3 (post/pre x 1e-3/2e-3): mu 2, V 0.5, each main effect -+0.5 (V 0.25).
  EXPECT_NEAR(h.total_variance, 0.5, 1e-7);
  EXPECT_NEAR(share_of(h, {"model.norm"}), 0.5, 1e-7);
  EXPECT_THROW(hparam_importance({run({{"train.seed", "1"}}, 1), run({{"train.seed", "2"}}, 2)},
                                 "valid_loss"),
               fathom::InputError);
}

// A 3 x 4 grid built additively (method effects -1, 0, 1; rate effects -1.5, -0.5, 0.5, 1.5:
// V = 2/3 + 5/4) with two settings whose runs diverged and one never run: the fill predicts
// their additive values, so the shares are those of the full grid; the notes say what was
// filled and the fit's R^2, and the seeds' variance is over the settings with runs.
TEST(HparamImportance, SettingsWithoutAValueAreFilledByTheFittedModel) {
  const std::vector<std::string> methods = {"post", "pre", "admin"}, rates = {"1", "2", "3", "4"};
  std::vector<TableRun> runs;
  for (int m = 0; m < 3; ++m)
    for (int r = 0; r < 4; ++r) {
      if (m == 0 && r == 3) continue;  // never run
      for (int seed : {1, 2}) {
        runs.push_back(run({{"model.norm", methods[m]},
                            {"train.lr", rates[r]},
                            {"train.seed", std::to_string(seed)}},
                           (m - 1) + (r - 1.5) + (seed == 1 ? -0.1 : 0.1)));
        if ((m == 0 && r == 2) || (m == 1 && r == 3)) runs.back().metric.reset();  // diverged
      }
    }
  const auto h = hparam_importance(runs, "valid_loss");
  EXPECT_EQ(h.cells, 12);
  EXPECT_EQ(h.filled, 3);
  EXPECT_EQ(h.runs, 18);
  const double v = 2.0 / 3 + 5.0 / 4;
  EXPECT_NEAR(h.total_variance, v, 1e-7);
  EXPECT_NEAR(share_of(h, {"model.norm"}), (2.0 / 3) / v, 1e-7);
  EXPECT_NEAR(share_of(h, {"train.lr"}), (5.0 / 4) / v, 1e-7);
  EXPECT_NEAR(share_of(h, {"model.norm", "train.lr"}), 0, 1e-7);
  EXPECT_NEAR(h.fit_r_squared, 1, 1e-9);
  EXPECT_NEAR(h.seed_variance, 0.01, 1e-12);
  ASSERT_GE(h.notes.size(), 2u);
  EXPECT_NE(h.notes[1].find("3 of 12 settings have no run with a value of valid_loss"),
            std::string::npos)
      << h.notes[1];
  EXPECT_NE(h.notes[1].find("R^2 = 1.000"), std::string::npos) << h.notes[1];

  // Every run of one rate diverged: nothing predicts that rate's settings.
  for (auto& r : runs)
    if (r.axes["train.lr"] == "1") r.metric.reset();
  try {
    hparam_importance(runs, "valid_loss");
    FAIL() << "filled a rate no run measured";
  } catch (const fathom::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no run with train.lr=1 has one"), std::string::npos)
        << e.what();
  }
}

// The shares' intervals resample each setting's seeds: with two equal seeds a setting nothing
// moves (each interval is its share); with noise an axis of no effect keeps an interval from 0
// up, the axis that moves everything one near 1; one seed a setting gives none, said why.
TEST(HparamImportance, SharesHaveIntervalsOverTheSeeds) {
  const auto grid = [](double noise, int seeds) {
    std::vector<TableRun> runs;
    std::mt19937_64 random(3);
    std::normal_distribution<double> draw(0, 1);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int seed = 1; seed <= seeds; ++seed)
          runs.push_back(run({{"a", std::to_string(a)},
                              {"b", std::to_string(b)},
                              {"train.seed", std::to_string(seed)}},
                             2.0 * a + noise * draw(random)));
    return runs;
  };
  const auto exact = hparam_importance(grid(0, 2), "valid_loss");
  ASSERT_EQ(exact.interval_draws, 200);
  for (const auto& t : exact.terms) {
    EXPECT_DOUBLE_EQ(t.share_lo, t.share);
    EXPECT_DOUBLE_EQ(t.share_hi, t.share);
  }
  const auto noisy = hparam_importance(grid(0.5, 4), "valid_loss");
  const auto& strong = noisy.terms[0];
  ASSERT_EQ(strong.axes, std::vector<std::string>{"a"});
  EXPECT_GT(strong.share_lo, 0.8);
  EXPECT_LE(strong.share_hi, 1.0);
  EXPECT_LT(strong.share_lo, strong.share_hi);
  const auto b = std::find_if(noisy.terms.begin(), noisy.terms.end(), [](const auto& t) {
    return t.axes == std::vector<std::string>{"b"};
  });
  ASSERT_NE(b, noisy.terms.end());
  EXPECT_GE(b->share_lo, 0.0);
  EXPECT_GT(b->share_hi, b->share_lo);
  EXPECT_LT(b->share_hi, 0.2);
  // The same draws every time.
  EXPECT_EQ(hparam_importance(grid(0.5, 4), "valid_loss").terms[1].share_hi,
            noisy.terms[1].share_hi);

  // Some settings with one run: intervals still, and the note says how many can move.
  auto partly = grid(0.5, 1);
  for (const auto& seeded : grid(0.5, 2))
    if (seeded.axes.at("a") == "0" && seeded.axes.at("train.seed") == "2") partly.push_back(seeded);
  const auto some = hparam_importance(partly, "valid_loss");
  EXPECT_EQ(some.interval_draws, 200);
  bool counted = false;
  for (const auto& n : some.notes)
    counted |=
        n.find("only 3 of the 9 settings with a value have two runs or more") != std::string::npos;
  EXPECT_TRUE(counted);
  for (const auto& n : exact.notes) EXPECT_EQ(n.find("only "), std::string::npos) << n;

  const auto single = hparam_importance(grid(0.5, 1), "valid_loss");
  EXPECT_EQ(single.interval_draws, 0);
  bool said = false;
  for (const auto& n : single.notes) said |= n.find("no setting has two runs") != std::string::npos;
  EXPECT_TRUE(said);
}

// A zip group (norm and init move together: post / xavier, pre / xavier, post / admin) is one
// axis: as separate keys the grid misses pre / admin; as a group it is complete.
TEST(HparamImportance, AZipGroupIsOneAxis) {
  std::vector<TableRun> runs;
  const std::vector<std::pair<std::string, std::string>> methods = {
      {"post", "xavier"}, {"pre", "xavier"}, {"post", "admin"}};
  double m = 0;
  for (const auto& [norm, init] : methods)
    for (const char* lr : {"1e-3", "2e-3"})
      runs.push_back(run({{"model.norm", norm}, {"model.init", init}, {"train.lr", lr}}, m++));
  // As separate keys the never-run pre / admin settings are filled, and the notes say so.
  EXPECT_EQ(hparam_importance(runs, "valid_loss").filled, 2);
  const auto h = hparam_importance(runs, "valid_loss", "train.seed",
                                   {{"model.norm", "model.init"}, {"train.lr"}});
  EXPECT_EQ(h.axes, (std::vector<std::string>{"model.norm+model.init", "train.lr"}));
  EXPECT_EQ(h.cells, 6);
  EXPECT_EQ(h.filled, 0);
  // m = 0..5 in (method, lr) order: method effects -2, 0, +2 (V 8/3), lr -+0.5 (V 1/4), no
  // interaction; V = 35/12.
  EXPECT_NEAR(h.total_variance, 35.0 / 12, 1e-12);
  EXPECT_NEAR(share_of(h, {"model.norm+model.init"}), (8.0 / 3) / (35.0 / 12), 1e-12);
  EXPECT_NEAR(share_of(h, {"train.lr"}), 0.25 / (35.0 / 12), 1e-12);
}

}  // namespace test_hparam_importance
