// The analyses tab: stored results of `fathom analyze` are listed for the selected run and
// drawn with plot/'s analysis figures (beta heatmaps, output shift with fits, linearize
// table and bars); Compute runs the command line as a child process (here a stand-in
// script), follows its progress, can be cancelled, and shows the result it recorded.
#include <qcustomplot.h>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QMessageBox>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <memory>

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

// Clicks the button named `button` of the next question box (a modal dialog) the code opens
// within two seconds; *asked says whether one opened.
void answer_next_question(const QString& button, bool* asked) {
  *asked = false;
  auto* poll = new QTimer;
  auto tries = std::make_shared<int>(0);
  QObject::connect(poll, &QTimer::timeout, [poll, button, asked, tries] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (box) {
      for (QAbstractButton* b : box->buttons())
        if (b->text() == button) {
          *asked = true;
          b->click();
        }
    }
    if (box || ++*tries > 40) poll->deleteLater();
  });
  poll->start(50);
}

// A decoder-only model's beta (12 layers, 24 sub-layers): the encoder has no rows; the
// decoder's 25 branches are more columns than their labels fit in a laptop's panel.
std::string decoder_only_beta() {
  std::string labels = "\"dec.embed\"", rows, beta;
  for (int i = 0; i < 24; ++i) {
    const std::string name = "\"dec." + std::to_string(i / 2) + (i % 2 ? ".ffn\"" : ".self_attn\"");
    labels += "," + name;
    rows += (i ? "," : "") + name;
    std::string row;
    for (int j = 0; j <= i + 1; ++j) row += (j ? "," : "") + std::to_string(0.5 / (j + 1));
    beta += std::string(i ? "," : "") + "[" + row + "]";
  }
  return R"({"encoder": {"beta": [], "labels": ["enc.embed"], "rows": [], "final": null},
             "decoder": {"labels": [)" +
         labels + "], \"rows\": [" + rows + "], \"beta\": [" + beta + "], \"final\": null}}";
}

class AnalysisViewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;
  int64_t run_ = 0, other_ = 0, bare_ = 0, beta_ = 0, shift_ = 0, linearize_ = 0, others_beta_ = 0,
          dyt_ = 0, lm_beta_ = 0;

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

  // The analyses tab over `path`'s store (db_ when empty) with run `run` selected (0: none),
  // shown at 1100 x 700 first when `shown` (the tests of figure sizes and of the mouse). Null,
  // with a warning, where the store does not open.
  struct OpenTab {
    std::unique_ptr<StoreSession> session;
    std::unique_ptr<AnalysisView> view;  // destroyed first: it reads the session
  };
  std::unique_ptr<OpenTab> open_tab(int64_t run, bool shown = false, QString path = {}) {
    if (path.isEmpty()) path = db_;
    QString error;
    auto tab = std::make_unique<OpenTab>();
    tab->session = StoreSession::open(path, &error);
    if (!tab->session) {
      qWarning("%s", qPrintable(error));
      return nullptr;
    }
    tab->view = std::make_unique<AnalysisView>();
    if (shown) {
      tab->view->resize(1100, 700);
      tab->view->show();
      if (!QTest::qWaitForWindowExposed(tab->view.get())) return nullptr;
    }
    tab->view->setSession(tab->session.get(), path);
    if (run) tab->view->setRuns({*tab->session->store.find_run(std::to_string(run))});
    return tab;
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
    r.name = "bare";  // no analysis
    bare_ = store.create_run(r);
    r.name = "lm";
    const std::string lm = decoder_only_beta();
    lm_beta_ = add(store, store.create_run(r), "beta", lm.c_str());
    beta_ = add(store, run_, "beta", kBeta);
    linearize_ = add(store, run_, "linearize", kLinearize);
    others_beta_ = add(store, other_, "beta", kBeta);
    shift_ = add(store, std::nullopt, "output-shift", kShift);  // configs: no run
    dyt_ = add(store, other_, "ln-scale", kLnScaleDyt);
  }

  // The kind's table and words (plot/analysis_kinds.h): a DyT model's ln-scale shows each
  // DyT's alpha and says why there is no w/sigma; no figure, and it says so.
  void lnScaleOfADyTModelListsItsAlphas() {
    const auto tab = open_tab(other_);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
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
    const auto tab = open_tab(run_);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
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
    const auto tab = open_tab(run_);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;

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

    const auto tab = open_tab(run_);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
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
    bool asked = false;
    answer_next_question("Compute again", &asked);  // the run has a grad-norms result now
    view.compute();
    QVERIFY(asked);
    QTRY_VERIFY(!view.runner()->running());
    QTRY_COMPARE(view.results()->rowCount(), 4);
    QCOMPARE(view.panel()->plots().size(), 1);
    QCOMPARE(view.panel()->plots()[0]->plottableCount(), 2);  // enc_attn and enc_ffn bars
    QVERIFY(
        view.panel()->caption().startsWith(QStringLiteral("analysis %1: grad-norms").arg(grads)));
    qunsetenv("FAKE_ID");
  }

  // A heatmap's cell under the mouse names its row, column and value: the encoder's
  // enc.0.ffn output reads 0.6 of branch enc.0.ffn (kBeta); the masked cell right of
  // enc.0.self_attn's own branch reads nothing.
  void betaHeatmapShowsTheValueUnderTheMouse() {
    const auto tab = open_tab(run_, true);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
    QVERIFY(view.showAnalysis(beta_));
    QApplication::processEvents();
    QCustomPlot* encoder = view.panel()->plots()[0];
    encoder->replot();
    auto move_to = [&](double col, double row) {
      const QPointF pixel(encoder->xAxis->coordToPixel(col), encoder->yAxis->coordToPixel(row));
      QMouseEvent move(QEvent::MouseMove, pixel, encoder->mapToGlobal(pixel), Qt::NoButton,
                       Qt::NoButton, Qt::NoModifier);
      QCoreApplication::sendEvent(encoder, &move);
      return view.panel()->lastHover();
    };
    QCOMPARE(
        move_to(2, 1),
        QStringLiteral("output i: enc.0.ffn\nbranch j: enc.0.ffn\nbeta (share of output) = 0.6"));
    QVERIFY(move_to(0, 1).endsWith("= 0.5"));
    QCOMPARE(move_to(2, 0), QString());  // masked: enc.0.self_attn cannot read enc.0.ffn
  }

  // A decoder-only model's beta is one figure, the decoder's (no empty encoder plot beside
  // it), its branch labels every k-th so that they do not overlap at the panel's width.
  void decoderOnlyBetaIsOneReadableFigure() {
    const auto tab = open_tab(0, true);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
    view.findChild<QCheckBox*>()->setChecked(true);  // every run's results
    QVERIFY(view.showAnalysis(lm_beta_));
    QCOMPARE(view.panel()->plots().size(), 1);
    QCustomPlot* decoder = view.panel()->plots()[0];
    QVERIFY(qobject_cast<QCPColorMap*>(decoder->plottable(0)));
    auto labels_fit = [decoder] {
      auto ticker = decoder->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
      const int height = QFontMetrics(decoder->xAxis->tickLabelFont()).height();
      return ticker && ticker->ticks().size() >= 2 &&
             ticker->ticks().size() * height <= decoder->axisRect()->width();
    };
    QTRY_VERIFY(labels_fit());
    view.resize(1600, 1000);
    QTRY_VERIFY(labels_fit());
  }

  // The figures take the panel's size: side by side at a laptop's width, taller in a taller
  // window, one under the other where two would be too narrow.
  void figuresFollowThePanelsSize() {
    const auto tab = open_tab(run_, true);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
    QVERIFY(view.showAnalysis(beta_));
    QApplication::processEvents();
    const auto& plots = view.panel()->plots();
    QCOMPARE(view.panel()->columns(), 2);
    QCOMPARE(plots[0]->y(), plots[1]->y());  // side by side
    const int laptop_height = plots[0]->height();
    QVERIFY2(laptop_height > 400, qPrintable(QString::number(laptop_height)));
    view.resize(1600, 1000);
    QApplication::processEvents();
    QVERIFY2(plots[0]->height() >= laptop_height + 250,
             qPrintable(QString::number(plots[0]->height())));
    QVERIFY(plots[0]->width() > 500);
    view.resize(820, 700);  // a panel of about 500 px: one figure a row
    QApplication::processEvents();
    QCOMPARE(view.panel()->columns(), 1);
    QVERIFY(plots[1]->y() > plots[0]->y());
  }

  // With nothing to show, the panel says what to do instead of standing empty: a store with
  // one beta result of another run.
  void anEmptyPanelSaysWhatToDo() {
    QTemporaryDir dir;
    const QString path = dir.filePath("one.db");
    int64_t bare = 0;
    {
      auto store = Store::open(path.toStdString());
      NewRun r;
      r.name = "bare";
      bare = store.create_run(r);
      r.name = "analysed";
      add(store, store.create_run(r), "beta", kBeta);
    }
    const auto tab = open_tab(bare, false, path);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
    QCOMPARE(view.results()->rowCount(), 0);
    QVERIFY(view.panel()->plots().isEmpty());
    const QString caption = view.panel()->caption();
    QVERIFY2(caption.contains("No analysis of the selected run is stored") &&
                 caption.contains("1 result of other runs is stored: tick All runs") &&
                 caption.contains("Compute one below"),
             qPrintable(caption));
    view.setRuns({});
    QVERIFY2(view.panel()->caption().startsWith("No run selected"),
             qPrintable(view.panel()->caption()));
  }

  // Compute of a result already stored (same run, kind, checkpoint) asks first: "Show stored"
  // starts nothing and shows it; "Compute again" starts the command.
  void computingAStoredResultAgainAsks() {
    const QString script = dir_.filePath("sleepy-fathom");
    {
      QFile f(script);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("#!/bin/sh\nsleep 30\n");
      f.close();
      f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    }
    qputenv("FATHOM_BIN", script.toUtf8());
    const auto tab = open_tab(run_);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
    QVERIFY(view.showAnalysis(linearize_));
    view.kindBox()->setCurrentText("beta");
    QVERIFY(view.storedDuplicate() && view.storedDuplicate()->id == beta_);

    bool asked = false;
    answer_next_question("Show stored", &asked);
    view.compute();
    QVERIFY(asked);
    QVERIFY(!view.runner()->running());
    QVERIFY2(view.panel()->caption().startsWith(QStringLiteral("analysis %1: beta").arg(beta_)),
             qPrintable(view.panel()->caption()));

    answer_next_question("Compute again", &asked);
    view.compute();
    QVERIFY(asked);
    QVERIFY(view.runner()->running());
    view.cancel();
    QTRY_VERIFY(!view.runner()->running());

    // Another kind: nothing stored, nothing asked.
    view.kindBox()->setCurrentText("ln-scale");
    QVERIFY(!view.storedDuplicate());
  }

  // The Checkpoint choice offers the selected run's models as the run page does -- best, last,
  // each kept update in order, the means of the last kept -- and init; each reaches the command
  // as `fathom analyze` takes it, and a mean already computed (its row names the updates it
  // averaged) asks before computing it again. A run with no checkpoint row yet has best, last
  // and init.
  void theCheckpointChoiceOffersTheRunsKeptModelsAndTheirMeans() {
    int64_t kept = 0, mean = 0;
    {
      auto store = Store::open(db_.toStdString());
      NewRun r;
      r.name = "kept";
      r.config_yaml = "name: kept\n";
      kept = store.create_run(r);
      for (const auto& [kind, step] :
           std::vector<std::pair<std::string, int64_t>>{{"checkpoint_6", 6},
                                                        {"checkpoint_best", 6},
                                                        {"checkpoint_3", 3},
                                                        {"checkpoint_last", 6},
                                                        {"checkpoint_previous", 3}})
        store.add_artifact(kept, kind, "/nowhere/" + kind + ".pt", step);
      NewAnalysis a;
      a.run_id = kept;
      a.kind = "beta";
      a.checkpoint = "mean of 2, updates 3 6";  // as `fathom analyze --average 2` records it
      a.params_json = "{}";
      a.result_json = kBeta;
      mean = store.add_analysis(a);
    }
    const auto tab = open_tab(kept);
    QVERIFY(tab);
    AnalysisView& view = *tab->view;
    QComboBox* box = view.checkpointBox();
    QStringList offered;
    for (int i = 0; i < box->count(); ++i) offered << box->itemData(i).toString();
    QCOMPARE(offered.mid(2), (QStringList{"3", "6", "mean:2", "init"}));
    QCOMPARE(box->currentData().toString(), QStringLiteral("best"));
    view.kindBox()->setCurrentText("beta");
    const auto arguments = [&](const QString& choice) {
      box->setCurrentIndex(box->findData(choice));
      QString error;
      const QStringList args = view.computeArguments(&error);
      return args.mid(1, 3);
    };
    QCOMPARE(arguments("3"), (QStringList{QString::number(kept), "--checkpoint", "3"}));
    QVERIFY(!view.storedDuplicate());
    QCOMPARE(arguments("mean:2"), (QStringList{QString::number(kept), "--average", "2"}));
    QVERIFY(view.storedDuplicate() && view.storedDuplicate()->id == mean);

    view.setRuns({*tab->session->store.find_run(std::to_string(bare_))});
    offered.clear();
    for (int i = 0; i < box->count(); ++i) offered << box->itemData(i).toString();
    QCOMPARE(offered, (QStringList{"best", "last", "init"}));
    QCOMPARE(box->currentData().toString(), QStringLiteral("best"));
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
