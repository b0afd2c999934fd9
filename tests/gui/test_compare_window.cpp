// Run > Compare runs in the runs view (gui/compare_window.h): enabled for two to eight selected
// runs, it opens `fathom compare`'s comparison -- here of two language models whose test text
// is cut into blocks -- and the window holds the paired perplexity test the command computes,
// checked against the same test computed here from the stored files, and, asked, the test of two
// configurations paired by seed (skipped when fathom is not built).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "base/config/config_io.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "db/store.h"
#include "gui/compare_window.h"
#include "gui/fathom_binary.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::SegmentNll;
using fathom::db::Store;
using fathom::gui::RunsView;

namespace test_compare_window {

const char* kLanguageModel =
    "name: lm\nmodel: {arch: decoder_only, d_model: 16, heads: 2, d_ff: 32, decoder_layers: 1}\n"
    "data: {task: lm, train_text: train.txt, valid_text: valid.txt, test_text: test.txt,\n"
    "       lm_block: 32}\n"
    "train: {max_updates: 4}\n";

QAction* compare_action(const RunsView& view) {
  for (QAction* a : view.runActions())
    if (a->text() == QStringLiteral("Comp&are runs")) return a;
  return nullptr;
}

// A run of `config` that kept `segments` as its test NLL.
void add_language_model(Store& store, const fathom::RunConfig& config,
                        const std::vector<SegmentNll>& segments, const QTemporaryDir& dir) {
  fathom::db::NewRun r;
  r.name = "lm";
  r.config_yaml = fathom::config_to_yaml(config);
  r.config_json = fathom::config_to_json(config).dump();
  const int64_t id = store.create_run(r);
  const std::filesystem::path file =
      dir.filePath(QStringLiteral("runs.artifacts/run-%1/test.nll").arg(id)).toStdString();
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << fathom::segment_nll_text(segments);
  store.add_artifact(id, "test_nll", file.string(), 0);
}

class CompareWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void compareShowsThePairedPerplexityTestInBlocks() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    // 200 blocks of one text: the second model's edge persists over neighbouring blocks.
    std::mt19937_64 rng(8);
    std::normal_distribution<double> e(0, 0.1);
    std::vector<SegmentNll> a, b;
    double own = 0;
    for (int k = 0; k < 200; ++k) {
      own = 0.85 * own + e(rng);
      a.push_back({32 * 3.0, 32});
      b.push_back({32 * (2.95 + own), 32});
    }
    {
      const auto config =
          fathom::load_config_string(kLanguageModel, "lm", dir.path().toStdString());
      auto store = Store::open(db.toStdString());
      for (const auto* segments : {&a, &b}) add_language_model(store, config, *segments, dir);
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    RunsView view;
    view.setSession(session.get(), db);
    QAction* compare = compare_action(view);
    QVERIFY(compare);
    view.table()->selectRow(0);
    QVERIFY(!compare->isEnabled());  // one run: nothing to compare it with
    view.table()->selectAll();
    QVERIFY(compare->isEnabled());

    QString problem;
    auto* window = fathom::gui::open_compare_window(&view, db, {2, 1}, &problem);
    QVERIFY2(window, qPrintable(problem));
    QCOMPARE(window->windowTitle(), QStringLiteral("Compare #2 against #1"));
    const auto expected =
        fathom::paired_bootstrap_perplexity(a, b, 1000, 12345, fathom::SegmentOrder::serial);
    QVERIFY(expected.block_length > 1);
    char line[160];
    std::snprintf(line, sizeof line, "%.3f [%.3f, %.3f] vs %.3f", expected.system.score,
                  expected.system.mean - expected.system.ci,
                  expected.system.mean + expected.system.ci, expected.baseline.score);
    const QString shown = window->text()->toPlainText();
    QVERIFY2(shown.contains(QString::fromUtf8(line)), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("200 sequences in circular blocks of %1 neighbours")
                                .arg(expected.block_length)),
             qPrintable(shown));
    std::snprintf(line, sizeof line, "p = %.4f", expected.p);
    QVERIFY2(shown.contains(QString::fromUtf8(line)), qPrintable(shown));
    // The tables are drawn as tables, not as pipes.
    QVERIFY2(!shown.contains(QStringLiteral("|---|")), qPrintable(shown));
    // Copy Markdown: the command's text as it printed it.
    for (auto* button : window->findChildren<QPushButton*>())
      if (button->text() == QStringLiteral("Copy &Markdown")) button->click();
    QCOMPARE(QApplication::clipboard()->text(), window->markdown());
    QVERIFY(window->markdown().contains(QStringLiteral("|---|")));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      window->resize(1100, 700);
      QTest::qWait(50);
      window->grab().save(QString::fromUtf8(out) + "/compare-window.png");
    }
    window->close();
  }

  // Four runs, two rates by two seeds: the window adds the test of the two rates over their
  // seeds and the test set, as computed here from the stored files.
  void compareTestsTwoConfigurationsOverTheirSeeds() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    std::mt19937_64 rng(9);
    std::normal_distribution<double> e(0, 0.1);
    std::vector<std::vector<SegmentNll>> nll(4);
    for (int k = 0; k < 100; ++k)
      for (int r = 0; r < 4; ++r) nll[r].push_back({32 * (3.0 - (r >= 2 ? 0.05 : 0) + e(rng)), 32});
    {
      auto store = Store::open(db.toStdString());
      for (int r = 0; r < 4; ++r) {
        auto config = fathom::load_config_string(kLanguageModel, "lm", dir.path().toStdString());
        config.train.lr = r >= 2 ? 0.002 : 0.001;
        config.train.seed = 1 + r % 2;
        add_language_model(store, config, nll[r], dir);
      }
    }
    RunsView view;
    QString problem;
    auto* window = fathom::gui::open_compare_window(&view, db, {1, 2, 3, 4}, &problem);
    QVERIFY2(window, qPrintable(problem));
    const auto expected = fathom::seed_arms_perplexity({nll[2], nll[3]}, {nll[0], nll[1]},
                                                       fathom::SegmentOrder::serial);
    char line[160];
    std::snprintf(line, sizeof line, "test perplexity: mean %.3f vs %.3f", expected.mean_a,
                  expected.mean_b);
    const QString shown = window->text()->toPlainText();
    QVERIFY2(shown.contains(QStringLiteral("Over seeds and sentences: #3, #4 as one "
                                           "configuration's seeds against #1, #2")),
             qPrintable(shown));
    QVERIFY2(shown.contains(QString::fromUtf8(line)), qPrintable(shown));
    std::snprintf(line, sizeof line, "p = %.4f", expected.p);
    QVERIFY2(shown.contains(QString::fromUtf8(line)), qPrintable(shown));
    // Pair by seed: the command again with --pair-seeds, the seeds' differences tested.
    QCOMPARE(window->option(0)->text(), QStringLiteral("Pair by &seed"));
    QVERIFY(!window->option(0)->isChecked());  // a design chosen before the results
    QVERIFY(!window->arguments().contains(QStringLiteral("--pair-seeds")));
    window->option(0)->setChecked(true);
    QVERIFY(window->arguments().contains(QStringLiteral("--pair-seeds")));
    const auto paired = fathom::seed_paired_perplexity({nll[2], nll[3]}, {nll[0], nll[1]},
                                                       fathom::SegmentOrder::serial);
    QVERIFY(paired.paired_by_seed);
    QVERIFY(std::abs(paired.p - expected.p) > 1e-4);  // another test, another p
    const QString paired_shown = window->text()->toPlainText();
    QVERIFY2(paired_shown.contains(QStringLiteral("paired by seed in that order")),
             qPrintable(paired_shown));
    std::snprintf(line, sizeof line, "p = %.4f", paired.p);
    QVERIFY2(paired_shown.contains(QString::fromUtf8(line)), qPrintable(paired_shown));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      window->resize(1100, 900);
      QTest::qWait(50);
      window->grab().save(QString::fromUtf8(out) + "/compare-window-seeds.png");
    }
    window->close();
  }
};

FATHOM_GUI_TEST(CompareWindowTest);

}  // namespace test_compare_window

#include "test_compare_window.moc"
