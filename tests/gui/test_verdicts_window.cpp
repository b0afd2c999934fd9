// The comparison view's "Verdicts..." (gui/verdicts_window.h): a sweep of three language-model
// norms by three seeds, tested against Post-LN on test perplexity. The window is `fathom export
// verdicts`'s report of the table shown: Welch's p, Holm-adjusted over the table's two tests, as
// the table's cells give it; the test over the seeds and the test set at once as computed here
// from the stored segment NLL, unpaired and, asked, paired by seed (skipped when fathom is not
// built).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <QCheckBox>
#include <QFile>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "base/config/config_io.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/metrics/statistics.h"
#include "db/store.h"
#include "gui/comparison_view.h"
#include "gui/fathom_binary.h"
#include "gui/store_session.h"
#include "gui/verdicts_window.h"
#include "tests/gui/gui_test_registry.h"

using fathom::SegmentNll;
using fathom::db::Store;
using fathom::gui::CommandReportWindow;
using fathom::gui::ComparisonView;

namespace test_verdicts_window {

const char* kLanguageModel =
    "name: lm\nmodel: {arch: decoder_only, d_model: 16, heads: 2, d_ff: 32, decoder_layers: 1}\n"
    "data: {task: lm, train_text: train.txt, valid_text: valid.txt, test_text: test.txt,\n"
    "       lm_block: 32}\n"
    "train: {max_updates: 4}\n";

const std::vector<std::string> kNorms{"post", "pre", "peri"};

double perplexity_of(const std::vector<SegmentNll>& segments) {
  double nll = 0, tokens = 0;
  for (const auto& s : segments) nll += s.nll, tokens += s.tokens;
  return std::exp(nll / tokens);
}

// nll[norm][seed]: 80 segments of 32 tokens; a seed's own luck is shared by every norm it
// trains (the same initialisation and data order), so pairing by seed cancels it. valid_loss:
// each run's, a second metric the family can take in.
struct StudyData {
  std::vector<std::vector<std::vector<SegmentNll>>> nll;
  std::vector<std::vector<double>> valid_loss;
};

StudyData make_study(Store& store, const QTemporaryDir& dir) {
  std::mt19937_64 rng(21);
  std::normal_distribution<double> segment_noise(0, 0.1), seed_luck(0, 0.04);
  const double edge[] = {0, -0.06, -0.01};
  std::vector<std::vector<std::vector<SegmentNll>>> nll(3, std::vector<std::vector<SegmentNll>>(3));
  for (int seed = 0; seed < 3; ++seed) {
    const double luck = seed_luck(rng);
    for (size_t norm = 0; norm < 3; ++norm)
      for (int k = 0; k < 80; ++k)
        nll[norm][seed].push_back({32 * (3.0 + edge[norm] + luck + segment_noise(rng)), 32});
  }
  std::vector<std::vector<double>> valid_loss(3, std::vector<double>(3));
  for (size_t norm = 0; norm < 3; ++norm)
    for (int seed = 0; seed < 3; ++seed) {
      auto config = fathom::load_config_string(kLanguageModel, "lm", dir.path().toStdString());
      config.train.seed = 1 + seed;
      fathom::db::NewRun r;
      r.name = "v/" + kNorms[norm] + std::to_string(seed + 1);
      r.sweep = "v";
      r.config_yaml = fathom::config_to_yaml(config);
      r.config_json = fathom::config_to_json(config).dump();
      const int64_t id = store.create_run(r);
      store.set_tag(id, "axis.model.norm", kNorms[norm]);
      store.set_tag(id, "axis.train.seed", std::to_string(seed + 1));
      const std::filesystem::path file =
          dir.filePath(QStringLiteral("v.artifacts/run-%1/test.nll").arg(id)).toStdString();
      std::filesystem::create_directories(file.parent_path());
      std::ofstream(file) << fathom::segment_nll_text(nll[norm][seed]);
      store.add_artifact(id, "test_nll", file.string(), 0);
      store.set_final_metric(id, "test_ppl", perplexity_of(nll[norm][seed]));
      valid_loss[norm][seed] = 1.0 + 0.02 * static_cast<double>(norm * norm) + 0.01 * seed;
      store.set_final_metric(id, "valid_loss", valid_loss[norm][seed]);
      store.finish_run(id, "finished");
    }
  return {nll, valid_loss};
}

// The study in a store, the comparison view on it testing test_ppl against Post-LN, and the
// window its Verdicts... opened.
struct OpenStudy {
  QTemporaryDir dir;
  StudyData data;
  std::unique_ptr<fathom::gui::StoreSession> session;
  ComparisonView view;
  CommandReportWindow* window = nullptr;

  bool open() {
    const QString db = dir.filePath("v.db");
    {
      auto store = Store::open(db.toStdString());
      data = make_study(store, dir);
    }
    QString error;
    session = fathom::gui::StoreSession::open(db, &error);
    if (!session) return false;
    view.setStore(session.get(), db);
    view.setRuns(session->store.list_runs());
    if (!view.choose("v", "model.norm", "", "test_ppl") || view.verdictsButton()->isEnabled())
      return false;  // nothing is tested against yet
    view.versus()->setCurrentIndex(view.versus()->findText(QStringLiteral("post")));
    view.waitForResults();  // the table is read in the view's worker thread
    if (!view.verdictsButton()->isEnabled()) return false;
    view.openVerdicts();
    const auto windows = view.findChildren<CommandReportWindow*>();
    window = windows.size() == 1 ? windows.front() : nullptr;
    return window;
  }
};

const QString kPrePost = QStringLiteral("| test_ppl | test_ppl | pre | post |");

// A row of the Markdown's `occurrence`-th table holding `key`.
QString row_of(const QString& markdown, const QString& key, int occurrence) {
  return markdown.section(key, occurrence, occurrence).section('\n', 0, 0);
}

QString p4(double p) { return QString::asprintf("%.4f", p); }

class VerdictsWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void verdictsReportTheTablesTestsAndTheTestOverTheTestSet() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    OpenStudy study;
    QVERIFY(study.open());
    CommandReportWindow* window = study.window;
    ComparisonView& view = study.view;
    const auto& nll = study.data.nll;
    QCOMPARE(window->windowTitle(), QStringLiteral("Verdicts: v, test_ppl against post"));
    QVERIFY(window->option(0)->isChecked());   // over the test set too
    QVERIFY(!window->option(1)->isChecked());  // pair by seed: chosen, not defaulted
    const QString shown = window->markdown();

    // Welch's p, Holm-adjusted over the two tests, as the table's cell shows it.
    const int pre = view.shown()->row_labels[1] == "pre" ? 1 : 2;
    const QString cell = view.table()->item(pre, 0)->text();
    const qsizetype at = cell.indexOf(QStringLiteral("(p="));
    QVERIFY2(at >= 0, qPrintable(cell));
    const QString table_p = cell.mid(at + 3, cell.size() - at - 4);
    QVERIFY2(shown.contains(QStringLiteral("| pre | post |")), qPrintable(shown));
    const QString welch_row = row_of(shown, QStringLiteral("| pre | post |"), 1);
    QVERIFY2(welch_row.contains(QStringLiteral("| ") + table_p + QStringLiteral(" |")),
             qPrintable(welch_row + " vs " + table_p));

    // Over seeds and sentences (the second table's row): each arm's three seeds and the test
    // set, Holm over 2 tests.
    const auto pre_test =
        fathom::seed_arms_perplexity(nll[1], nll[0], fathom::SegmentOrder::serial);
    const auto peri_test =
        fathom::seed_arms_perplexity(nll[2], nll[0], fathom::SegmentOrder::serial);
    const double pre_holm = std::min(
        1.0, pre_test.p <= peri_test.p ? 2 * pre_test.p : std::max(2 * peri_test.p, pre_test.p));
    const QString over_row = row_of(shown, kPrePost, 2);
    QVERIFY2(over_row.contains(QStringLiteral("| 3/3 |")), qPrintable(over_row));
    QVERIFY2(over_row.contains(QStringLiteral("| ") + p4(pre_test.p) + " | " + p4(pre_holm) + " |"),
             qPrintable(over_row + " vs " + p4(pre_test.p) + ", " + p4(pre_holm)));

    // Paired by seed: the seeds' shared luck cancels.
    window->option(1)->setChecked(true);
    QVERIFY(window->arguments().contains(QStringLiteral("--pair-seeds")));
    const auto pre_paired =
        fathom::seed_paired_perplexity(nll[1], nll[0], fathom::SegmentOrder::serial);
    QVERIFY(pre_paired.p < pre_test.p);
    const QString paired_row = row_of(window->markdown(), kPrePost, 2);
    QVERIFY2(paired_row.contains(QStringLiteral("| 3 paired |")), qPrintable(paired_row));
    QVERIFY2(paired_row.contains(QStringLiteral("| ") + p4(pre_paired.p) + " |"),
             qPrintable(paired_row + " vs " + p4(pre_paired.p)));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      window->resize(1100, 800);
      QTest::qWait(50);
      window->grab().save(QString::fromUtf8(out) + "/verdicts-window.png");
    }

    // Without the test over the test set, pairing has nothing to pair: off, and not passed.
    window->option(0)->setChecked(false);
    QVERIFY(!window->option(1)->isEnabled());
    QVERIFY(!window->arguments().contains(QStringLiteral("--paired-bootstrap")));
    QVERIFY(!window->arguments().contains(QStringLiteral("--pair-seeds")));
    QVERIFY(!window->markdown().contains(QStringLiteral("over seeds and sentences")));
    QVERIFY(window->markdown().contains(QStringLiteral("| pre | post |")));
    window->close();
  }

  // "Family also: valid_loss": the sweep's other evaluation metric joins the family -- four tests,
  // each Welch p Holm-adjusted over all four, as computed here from the stored values.
  void anotherMetricWidensTheFamily() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    OpenStudy study;
    QVERIFY(study.open());
    CommandReportWindow* window = study.window;
    QCOMPARE(window->option(2)->text(), QStringLiteral("valid_loss"));  // after the two
    QVERIFY(window->markdown().contains(QStringLiteral("Holm family: 2 tests")));
    window->option(2)->setChecked(true);
    QVERIFY(window->arguments().join(' ').endsWith(QStringLiteral("--metrics valid_loss")));
    const QString shown = window->markdown();
    QVERIFY2(shown.contains(QStringLiteral("Holm family: 4 tests")), qPrintable(shown));
    std::vector<double> p;  // test_ppl pre, peri; valid_loss pre, peri (against post)
    for (bool loss : {false, true})
      for (size_t norm : {1, 2}) {
        std::vector<double> row, post;
        for (int seed = 0; seed < 3; ++seed) {
          row.push_back(loss ? study.data.valid_loss[norm][seed]
                             : perplexity_of(study.data.nll[norm][seed]));
          post.push_back(loss ? study.data.valid_loss[0][seed]
                              : perplexity_of(study.data.nll[0][seed]));
        }
        p.push_back(fathom::welch_t_test(row, post)->p);
      }
    const std::vector<double> holm = fathom::holm_adjust(p);
    const QString valid_pre =
        row_of(shown, QStringLiteral("| valid_loss | valid_loss | pre | post |"), 1);
    QVERIFY2(valid_pre.contains(QString::asprintf("| %.3f | %.3f |", p[2], holm[2])),
             qPrintable(valid_pre + QString::asprintf(" vs %.3f, %.3f", p[2], holm[2])));
    const QString ppl_pre = row_of(shown, kPrePost, 1);
    QVERIFY2(ppl_pre.contains(QString::asprintf("| %.3f | %.3f |", p[0], holm[0])),
             qPrintable(ppl_pre + QString::asprintf(" vs %.3f, %.3f", p[0], holm[0])));
    // The test over seeds and sentences of test_ppl is Holm'd over the four too.
    QVERIFY2(shown.contains(QStringLiteral("p (Holm, 4)")), qPrintable(shown));
    // Save...: the report as shown (.md), and the same family as CSV (.csv: the command again,
    // --format csv), its Welch p and Holm p for valid_loss's pre against post as computed here.
    QString problem;
    const QString md = study.dir.filePath("verdicts.md"), csv = study.dir.filePath("verdicts.csv");
    QVERIFY2(window->saveTo(md, &problem), qPrintable(problem));
    QFile md_file(md);
    QVERIFY(md_file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(md_file.readAll()), shown);
    QVERIFY2(window->saveTo(csv, &problem), qPrintable(problem));
    QFile csv_file(csv);
    QVERIFY(csv_file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv_file.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);  // the header and the four tests
    QVERIFY2(lines[0].contains(QStringLiteral(",over_seeds_p_holm,")), qPrintable(lines[0]));
    const QString expected_p = QString::asprintf(",%.6g,%.6g,4,", p[2], holm[2]);
    QVERIFY2(lines.filter(QStringLiteral("\"valid_loss\",\"valid_loss\",\"pre\",\"post\""))
                 .value(0)
                 .contains(expected_p),
             qPrintable(lines.join('\n') + " vs " + expected_p));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      window->resize(1100, 800);
      QTest::qWait(50);
      window->grab().save(QString::fromUtf8(out) + "/verdicts-window-family.png");
    }
    window->close();
  }

  // A metric with no evaluation set to draw from has no test-set options.
  void aMetricWithoutAnEvaluationSetHasNoTestSetOptions() {
    QCOMPARE(fathom::gui::has_test_over_set("valid_loss"), false);
    QCOMPARE(fathom::gui::has_test_over_set("test_bleu"), true);
    QCOMPARE(fathom::gui::has_test_over_set("valid_ppl"), true);
    fathom::gui::VerdictsRequest request;
    request.sweep = "v";
    request.table.rows = "model.norm";
    request.table.cols = "model.depth";
    request.table.metric = "valid_loss";
    request.table.agg = fathom::experiments::CellAgg::Best;
    request.table.value = fathom::experiments::RunValue::Best;
    request.versus = "post";
    const QStringList args = fathom::gui::verdicts_arguments(request);
    QCOMPARE(args.mid(0, 10),
             (QStringList{"export", "verdicts", "--sweep", "v", "--rows", "model.norm", "--metrics",
                          "valid_loss", "--versus", "post"}));
    QVERIFY(args.join(' ').contains(QStringLiteral("--cols model.depth")));
    QVERIFY(args.join(' ').contains(QStringLiteral("--agg best --select-by valid_loss")));
    QVERIFY(args.join(' ').contains(QStringLiteral("--value best")));
  }
};

FATHOM_GUI_TEST(VerdictsWindowTest);

}  // namespace test_verdicts_window

#include "test_verdicts_window.moc"
