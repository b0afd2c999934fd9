// The comparison pivot: rows x columns of two sweep axes, mean and std over seeds, diverged
// and unfinished runs counted apart, numeric axis values in numeric order.
#include <cmath>

#include <QTest>

#include "gui/comparison_table.h"

using fathom::db::RunRecord;
using fathom::gui::compare_runs;

class ComparisonTableTest : public QObject {
  Q_OBJECT
 private slots:
  void pivotsTwoAxesOverSeeds() {
    std::vector<RunRecord> runs;
    std::map<int64_t, std::map<std::string, std::string>> tags;
    auto add = [&](const std::string& layers, const std::string& norm, const std::string& status,
                   double ppl) {
      RunRecord r;
      r.id = static_cast<int64_t>(runs.size()) + 1;
      r.status = status;
      if (!std::isnan(ppl)) r.final_metrics["valid_ppl"] = ppl;
      tags[r.id] = {{"axis.model.encoder_layers", layers}, {"axis.model.norm", norm}};
      runs.push_back(r);
    };
    add("18", "post", "diverged", NAN);
    add("6", "post", "finished", 8.0);
    add("6", "post", "finished", 10.0);  // a second seed
    add("6", "pre", "finished", 9.0);
    add("18", "pre", "running", NAN);
    add("18", "pre", "finished", 7.0);

    const auto t = compare_runs(runs, tags, "axis.model.encoder_layers", "axis.model.norm", "valid_ppl");
    QCOMPARE(t.rows, (std::vector<std::string>{"6", "18"}));  // numbers in numeric order
    QCOMPARE(t.cols, (std::vector<std::string>{"post", "pre"}));  // text in first-seen order
    QCOMPARE(t.cells[0][0].runs, 2);
    QCOMPARE(t.cells[0][0].mean, 9.0);
    QCOMPARE(t.cells[0][0].std, std::sqrt(2.0));
    QCOMPARE(t.cells[1][0].runs, 0);
    QCOMPARE(t.cells[1][0].diverged, 1);
    QCOMPARE(t.cells[1][1].runs, 1);
    QCOMPARE(t.cells[1][1].missing, 1);
    QCOMPARE(t.cells[1][1].std, 0.0);

    const auto one = compare_runs(runs, tags, "axis.model.norm", "", "valid_ppl");
    QCOMPARE(one.cols.size(), size_t(1));
    QCOMPARE(one.cells[1][0].runs, 2);  // pre: 9 and 7
    QCOMPARE(one.cells[1][0].mean, 8.0);
  }
};

QTEST_MAIN(ComparisonTableTest)
#include "test_comparison_table.moc"
