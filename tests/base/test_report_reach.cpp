// `fathom report --reach METRIC=VALUE`: the report's "Time to a target" section over its
// tables' layout. Runs whose validation loss falls linearly from 8 at update 0 through 2.0 at
// update s (post: s = 100 and 200; pre: 300 and 500): each row's mean and 95 % t half-width,
// by hand -- post 150 ± 12.706 x 70.71 / sqrt 2 = 635.3, pre 400 ± 1270.6. A value no run
// reaches counts 0 of 2; a malformed --reach is refused, naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/report.h"
#include "experiments/report_reach.h"
#include "tests/support/temp_dir.h"

namespace test_report_reach {
using namespace fathom;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ReportReach, TablesTheUpdatesEachRowTookToTheTarget) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    for (auto [norm, seed, s] :
         {std::tuple{"post", "1", 100}, {"post", "2", 200}, {"pre", "1", 300}, {"pre", "2", 500}}) {
      db::NewRun n;
      n.name = std::string("r/norm=") + norm + ",seed=" + seed;
      n.sweep = "r";
      n.config_yaml = "name: x\n";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.seed", seed);
      store.set_tag(id, "sweep.axes", "model.norm,train.seed");
      namespace m = db::metric;
      store.write_metrics(id, {{0, m::kValidLoss, 8.0, 0.0},
                               {2 * s, m::kValidLoss, -4.0, 0.0},
                               {2 * s, m::kTargetTokens, 200.0 * s, 0.0}});
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "report").string();
  options.reach = experiments::reach_request("valid_loss=2.0");
  std::string text = read(experiments::write_report(store, "r", options));
  EXPECT_NE(text.find("## Time to valid_loss 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| post | 2/2 | **150.0 ± 635.3** | 15000 ± 63531 | 100 |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| pre | 2/2 | **400.0 ± 1270.6** |"), std::string::npos) << text;

  // A renderer gets the table drawn, its stem, and no fit unasked; its file is linked.
  std::vector<size_t> drawn_cells;
  bool fitted = true;
  options.render_reach = [&](const experiments::ReachFigureRequest& r) {
    drawn_cells.push_back(r.table.cells.size());
    fitted = r.fit.has_value();
    return r.file_stem + ".png";
  };
  text = read(experiments::write_report(store, "r", options));
  EXPECT_EQ(drawn_cells, std::vector<size_t>{2});
  EXPECT_FALSE(fitted);
  EXPECT_NE(text.find("![updates to valid_loss 2 against the batch](reach-valid_loss.png)"),
            std::string::npos)
      << text;
  options.render_reach = [](const experiments::ReachFigureRequest&) { return std::string(); };
  text = read(experiments::write_report(store, "r", options));  // no figures: no link
  EXPECT_EQ(text.find("against the batch]("), std::string::npos) << text;
  options.render_reach = nullptr;

  options.reach = experiments::reach_request("valid_loss=-5");  // below every curve's end
  text = read(experiments::write_report(store, "r", options));
  EXPECT_NE(text.find("| post | 0/2 | - |"), std::string::npos) << text;

  options.reach.reset();  // no --reach: no section
  text = read(experiments::write_report(store, "r", options));
  EXPECT_EQ(text.find("## Time to"), std::string::npos) << text;
}

TEST(ReportReach, AMalformedRequestIsRefusedNamingIt) {
  for (const char* bad :
       {"valid_loss", "=2.0", "valid_loss=", "valid_loss=two", "valid_loss=nan"}) {
    SCOPED_TRACE(bad);
    try {
      experiments::reach_request(bad);
      FAIL() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--reach");
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  const auto r = experiments::reach_request("valid_bleu=25");
  EXPECT_EQ(r.metric, "valid_bleu");
  EXPECT_EQ(r.target, 25.0);
}

}  // namespace test_report_reach
