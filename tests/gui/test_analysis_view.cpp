// The analyses tab: stored results of `fathom analyze` are listed for the selected run and
// drawn with plot/'s analysis figures (beta heatmaps, output shift with fits, linearize
// table and bars); Compute runs the command line as a child process (here a stand-in
// script), follows its progress, can be cancelled, and shows the result it recorded.
#include <qcustomplot.h>
#include <QFile>
#include <QProgressBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/analysis_panel.h"
#include "gui/analysis_runner.h"
#include "gui/analysis_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewAnalysis;
using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_analysis_view {

const char* kBeta = R"({
  "encoder": {"labels": ["enc.embed", "enc.0.self_attn", "enc.0.ffn"],
              "rows": ["enc.0.self_attn", "enc.0.ffn"],
              "beta": [[0.7, 0.7, 0], [0.5, 0.6, 0.6]], "final": null},
  "decoder": {"labels": ["dec.embed", "dec.0.self_attn", "dec.0.enc_attn", "dec.0.ffn"],
              "rows": ["dec.0.self_attn", "dec.0.enc_attn", "dec.0.ffn"],
              "beta": [[0.7, 0.7, 0, 0], [0.5, 0.5, 0.7, 0], [0.4, 0.5, 0.5, 0.6]],
              "final": {"label": "dec.final_norm", "beta": [0.4, 0.4, 0.5, 0.6]}}})";

const char* kShift = R"({"perturb": "random", "eps": 0.0001, "draws": 3, "configs": [
  {"name": "post", "label": "post.yaml", "depths": [1, 2, 4], "shift": [1, 2, 4],
   "linear": {"a": 1, "b": 0, "r2": 1.0}, "log": {"a": 1, "b": 1, "r2": 0.8}},
  {"name": "pre", "label": "pre.yaml", "depths": [1, 2, 4], "shift": [1, 1.5, 2],
   "linear": {"a": 0.3, "b": 0.8, "r2": 0.9}, "log": {"a": 0.7, "b": 1, "r2": 1.0}}]})";

const char* kLinearize = R"({"objective": "task", "steps": 20, "lr": 0.001,
  "full": {"valid_ppl": 3.1, "bleu": 62.0},
  "layers": [{"layer": "enc.1", "stack": "enc", "index": 1, "valid_ppl": 3.3, "bleu": 60.2,
              "ppl_change_pct": 6.4, "bleu_change_pct": -2.9, "lstsq_mse": 0.01, "final_mse": 0.02, "pairs": 512},
             {"layer": "dec.1", "stack": "dec", "index": 1, "valid_ppl": 3.6, "bleu": 58.0,
              "ppl_change_pct": 16.1, "bleu_change_pct": -6.5, "lstsq_mse": 0.03, "final_mse": 0.04, "pairs": 512}]})";

// ln-scale of a DyT model (issue 19): no LayerNorm, so no w/sigma; the alphas and the note.
const char* kLnScaleDyt =
    R"({"norms": [], "dyt": [{"name": "enc.0.self_attn.pre_norm", "alpha": 0.5},
  {"name": "enc.final_norm", "alpha": 0.62}], "note": "model.norm 'dyt' has no LayerNorm"})";

const char* kGrads =
    R"({"labels": ["enc.0.self_attn", "enc.0.ffn"], "groups": {"enc_attn": [1.0], "enc_ffn": [0.5]}})";

class AnalysisViewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;
  int64_t run_ = 0, other_ = 0, beta_ = 0, shift_ = 0, linearize_ = 0, others_beta_ = 0, dyt_ = 0;

  int64_t add(Store& store, std::optional<int64_t> run, const std::string& kind,
              const char* result) {
    NewAnalysis a;
    a.run_id = run;
    a.kind = kind;
    a.checkpoint = run ? "best" : "";
    a.params_json = "{}";
    a.result_json = result;
    a.elapsed_s = 1.5;
    return store.add_analysis(a);
  }

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("analyses.db");
    auto store = Store::open(db_.toStdString());
    NewRun r;
    r.name = "post-6L";
    r.config_yaml = "name: post-6L\n";
    run_ = store.create_run(r);
    r.name = "other";
    other_ = store.create_run(r);
    beta_ = add(store, run_, "beta", kBeta);
    linearize_ = add(store, run_, "linearize", kLinearize);
    others_beta_ = add(store, other_, "beta", kBeta);
    shift_ = add(store, std::nullopt, "output-shift", kShift);  // configs: no run
    dyt_ = add(store, other_, "ln-scale", kLnScaleDyt);
  }

  // The kind's table and words (plot/analysis_kinds.h): a DyT model's ln-scale shows each
  // DyT's alpha and says why there is no w/sigma; no figure, and it says so.
  void lnScaleOfADyTModelListsItsAlphas() {
    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    AnalysisView view;
    view.setSession(session.get(), db_);
    view.setRuns({*session->store.find_run(std::to_string(other_))});
    QVERIFY(view.showAnalysis(dyt_));
    QTableWidget* table = view.panel()->table();
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->horizontalHeaderItem(0)->text(), QString("DyT"));
    QCOMPARE(table->item(1, 0)->text(), QString("enc.final_norm"));
    QCOMPARE(table->item(1, 1)->text(), QString("0.62"));
    QVERIFY2(view.panel()->caption().contains("has no LayerNorm"),
             qPrintable(view.panel()->caption()));
    QVERIFY(view.panel()->plots().isEmpty());
  }

  void listsTheRunsResultsAndDrawsBetaHeatmaps() {
    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    AnalysisView view;
    view.setSession(session.get(), db_);
    view.setRuns({*session->store.find_run(std::to_string(run_))});
    // The run's two results and the config analysis; not the other run's beta.
    QCOMPARE(view.results()->rowCount(), 3);
    QVERIFY(!view.showAnalysis(others_beta_));

    QVERIFY(view.showAnalysis(beta_));
    const auto& plots = view.panel()->plots();
    QCOMPARE(plots.size(), 2);  // encoder and decoder
    auto* encoder = qobject_cast<QCPColorMap*>(plots[0]->plottable(0));
    auto* decoder = qobject_cast<QCPColorMap*>(plots[1]->plottable(0));
    QVERIFY(encoder && decoder);
    QCOMPARE(encoder->data()->keySize(), 3);    // columns: embedding + 2 branches
    QCOMPARE(encoder->data()->valueSize(), 2);  // rows: 2 sub-layer outputs
    QCOMPARE(decoder->data()->keySize(), 4);
    QCOMPARE(decoder->data()->valueSize(), 4);  // 3 sub-layers + the final norm's row
    QVERIFY(!view.panel()->table());
  }

  void drawsOutputShiftWithFitsAndLinearizeAsTableAndBars() {
    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    AnalysisView view;
    view.setSession(session.get(), db_);
    view.setRuns({*session->store.find_run(std::to_string(run_))});

    QVERIFY(view.showAnalysis(shift_));
    QCOMPARE(view.panel()->plots().size(), 1);
    QCOMPARE(view.panel()->plots()[0]->graphCount(), 4);  // 2 configs, each with its dashed fit
    QVERIFY(view.panel()->caption().contains("post.yaml"));

    QVERIFY(view.showAnalysis(linearize_));
    QTableWidget* table = view.panel()->table();
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 3);  // the full model and two linearized layers
    QCOMPARE(table->item(2, 0)->text(), QString("dec.1"));
    QCOMPARE(table->item(2, 2)->text(), QString("16.1"));
    QCOMPARE(view.panel()->plots().size(), 1);
    QCOMPARE(view.panel()->plots()[0]->plottableCount(), 2);  // ppl and BLEU change bars
  }

  // Compute starts `fathom analyze KIND RUN --checkpoint C ...` with the store in $FATHOM_DB
  // (never --db in argv: a URL may hold a password), shows its progress, and Cancel kills it;
  // a run that ends shows the result it recorded.
  void computeFollowsProgressCancelsAndShowsTheResult() {
    const QString script = dir_.filePath("fake-fathom");
    const QString args_file = dir_.filePath("args.txt");
    const QString env_file = dir_.filePath("env.txt");
    {
      QFile f(script);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QStringLiteral("#!/bin/sh\n"
                             "echo \"$@\" > '%1'\n"
                             "echo \"$FATHOM_DB\" > '%2'\n"
                             "echo \"analyze grad-norms: loading 1\" >&2\n"
                             "echo \"grad-norms 1/4 (25%) \" >&2\n"
                             "if [ -n \"$FAKE_ID\" ]; then echo \"analysis $FAKE_ID (grad-norms) "
                             "recorded in x; took 0.10 s\" >&2; exit 0; fi\n"
                             "sleep 30\n")
                  .arg(args_file, env_file)
                  .toUtf8());
      f.close();
      f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    }
    qputenv("FATHOM_BIN", script.toUtf8());
    qunsetenv("FAKE_ID");

    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    AnalysisView view;
    view.setSession(session.get(), db_);
    view.setRuns({*session->store.find_run(std::to_string(run_))});
    view.kindBox()->setCurrentText("grad-norms");

    view.compute();
    QVERIFY(view.runner()->running());
    QTRY_VERIFY(view.findChild<QProgressBar*>()->value() == 25);
    QFile args(args_file);
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(args.readAll()).trimmed(),
             QStringLiteral("analyze grad-norms %1 --checkpoint best").arg(run_));
    QFile env(env_file);
    QVERIFY(env.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(env.readAll()).trimmed(), db_);
    QTest::qWait(300);
    QVERIFY(
        view.statusText().contains("grad-norms 1/4"));  // the CLI's latest line, with elapsed time
    view.cancel();
    QTRY_VERIFY(!view.runner()->running());
    QVERIFY2(view.statusText().startsWith("cancelled"), qPrintable(view.statusText()));

    // A result recorded by the (stand-in) CLI is loaded from the store and shown.
    int64_t grads = 0;
    {
      auto store = Store::open(db_.toStdString());
      grads = add(store, run_, "grad-norms", kGrads);
    }
    qputenv("FAKE_ID", QByteArray::number(qlonglong(grads)));
    view.compute();
    QTRY_VERIFY(!view.runner()->running());
    QTRY_COMPARE(view.results()->rowCount(), 4);
    QCOMPARE(view.panel()->plots().size(), 1);
    QCOMPARE(view.panel()->plots()[0]->plottableCount(), 2);  // enc_attn and enc_ffn bars
    QVERIFY(
        view.panel()->caption().startsWith(QStringLiteral("analysis %1: grad-norms").arg(grads)));
    qunsetenv("FAKE_ID");
  }

  void parsesTheCommandLinesOutput() {
    QCOMPARE(progress_percent("linearize 3/5 (60%) enc.2 1m02s"), 60);
    QCOMPARE(progress_percent("analyze beta: loading 12"), -1);
    QCOMPARE(recorded_analysis_id("analysis 17 (beta) recorded in /x/f.db; took 2.10 s"),
             qint64(17));
    QCOMPARE(recorded_analysis_id("error: no run"), qint64(-1));
  }
};

FATHOM_GUI_TEST(AnalysisViewTest);

}  // namespace test_analysis_view

#include "test_analysis_view.moc"
