// The run page's Translate tab (gui/translate_panel.h) against a run the real `fathom` trained on
// a toy German-English corpus: the expectations come from training, not from the tab -- the
// run's own test source, typed in reversed order, translates to the test hypotheses its final
// evaluation wrote (reversed), and against its references scores its test_bleu. The checkpoints
// offered are the run's rows; bad input is said before anything runs; a language model has no
// tab but an Attention tab (its text's self-attention). progress_of() reads the progress lines of
// the commands the app waits on.
#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "base/metrics/bleu.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "gui/attention_view.h"
#include "gui/fathom_binary.h"
#include "gui/fathom_call.h"
#include "gui/lm_attention_panel.h"
#include "gui/run_actions.h"
#include "gui/run_page.h"
#include "gui/translate_panel.h"
#include "plot/plot_widget.h"
#include "tests/gui/gui_test_registry.h"
#include "tests/support/toy_corpus.h"

using fathom::db::Store;
using namespace fathom::gui;

namespace test_run_translate {

QStringList file_lines(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return text_lines(QString::fromUtf8(f.readAll()));
}

QStringList reversed(QStringList lines) {
  std::reverse(lines.begin(), lines.end());
  return lines;
}

class RunTranslateTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (find_fathom_binary().isEmpty()) QSKIP("fathom binary not built ($FATHOM_BIN)");
    QVERIFY(scratch_.isValid());
    std::mt19937_64 rng(11);
    const std::filesystem::path corpus = scratch_.filePath("corpus").toStdString();
    for (const auto& [split, pairs] :
         {std::pair<std::string, int>{"train", 800}, {"valid", 20}, {"test", 30}})
      fathom::testing::write_word_for_word_corpus(corpus, split, pairs, rng);
    QFile config(scratch_.filePath("toy.yaml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(
        "name: toy\ndevice: cpu\n"
        "model: {d_model: 32, heads: 2, d_ff: 64, encoder_layers: 1, decoder_layers: 1}\n"
        "data:\n  task: parallel\n"
        "  train_source: corpus/train.de\n  train_target: corpus/train.en\n"
        "  valid_source: corpus/valid.de\n  valid_target: corpus/valid.en\n"
        "  test_source: corpus/test.de\n  test_target: corpus/test.en\n"
        "  vocab: {size: 40}\n  max_tokens: 256\n"
        "train: {lr: 0.01, warmup: 10, max_updates: 120, valid_every: 40, log_every: 40,\n"
        "        threads: 1, keep_checkpoint_every: 40}\n"
        "eval: {beam: 3}\n");
    config.close();
    QProcess train;
    train.setProcessEnvironment(fathom_environment(db()));
    train.start(find_fathom_binary(), {"train", config.fileName(), "--no-progress"});
    QVERIFY(train.waitForFinished(300000));
    QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());
    QFile lm(scratch_.filePath("lm.yaml"));  // run 2: a language model on the English side
    QVERIFY(lm.open(QIODevice::WriteOnly));
    lm.write(
        "name: lm\ndevice: cpu\n"
        "model: {arch: decoder_only, d_model: 16, heads: 2, d_ff: 32, decoder_layers: 2}\n"
        "data: {task: lm, train_text: corpus/train.en, valid_text: corpus/valid.en,\n"
        "       lm_block: 16, vocab: {size: 40}, max_tokens: 256}\n"
        "train: {lr: 0.005, warmup: 2, max_updates: 4, valid_every: 4, log_every: 2, threads: "
        "1}\n");
    lm.close();
    train.start(find_fathom_binary(), {"train", lm.fileName(), "--no-progress"});
    QVERIFY(train.waitForFinished(300000));
    QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());
  }

  // A language model's page: an Attention tab instead of Translate; a text's maps are each
  // layer's self-attention, the first row all on bos, nothing above the diagonal.
  void aLanguageModelsTextShowsItsSelfAttention() {
    auto store = Store::open(db().toStdString(), fathom::db::OpenMode::ReadOnly);
    RunPage page(store, *store.find_run("2"), {}, run_artifacts_dir(db(), 2).toStdString());
    QVERIFY(!page.translator());
    LmAttentionPanel* panel = page.lmAttention();
    QVERIFY(panel);
    QCOMPARE(page.tabs()->tabText(page.tabs()->indexOf(panel)), QStringLiteral("&Attention"));
    QVERIFY(panel->showButton()->isEnabled());
    QString problem;
    QVERIFY(!panel->showAttention(&problem));
    QCOMPARE(problem, QStringLiteral("type a text first"));
    panel->text()->setText("the dog runs in the park");
    AttentionView* view = panel->showAttention(&problem);
    QVERIFY2(view, qPrintable(problem));
    QCOMPARE(view->mapChoice()->count(), 2);  // decoder_layers: 2
    QVERIFY(view->findChild<QLabel*>("attention_caption")->text().startsWith("text: the dog"));
    QCOMPARE(view->mapChoice()->currentText(), QStringLiteral("dec.1.self_attn"));  // the last
    const auto& values = view->shownValues();
    QCOMPARE(values.size(), view->rowTokens().size());
    QCOMPARE(values.front().size(), view->columnTokens().size());
    QCOMPARE(view->columnTokens().front(), std::string("<s>"));
    QVERIFY(std::fabs(values[0][0] - 1) < 1e-6);  // the first token can read only bos
    for (size_t q = 0; q < values.size(); ++q)
      for (size_t k = q + 1; k < values[q].size(); ++k) QCOMPARE(values[q][k], 0.0);
    QVERIFY(view->close());
  }

  void theRunsTestSourceTranslatesToItsOwnHypothesesAndBleu() {
    auto store = Store::open(db().toStdString(), fathom::db::OpenMode::ReadOnly);
    const auto run = store.find_run("1");
    QVERIFY(run && run->status == "finished");
    RunPage page(store, *run, {}, run_artifacts_dir(db(), 1).toStdString());
    TranslatePanel* panel = page.translator();
    QVERIFY(panel);
    QCOMPARE(page.tabs()->tabText(page.tabs()->indexOf(panel)), QStringLiteral("&Translate"));
    // The run's rows: best, last and the kept ones, never the fallback; and means of the kept.
    // In that order: the named models, the kept updates by update, then the means.
    QStringList offered;
    for (int i = 0; i < panel->checkpoint()->count(); ++i)
      offered << panel->checkpoint()->itemData(i).toString();
    QCOMPARE(offered.mid(2), (QStringList{"40", "80", "120", "mean:2", "mean:3"}));
    QStringList named = offered.mid(0, 2);
    named.sort();
    QCOMPARE(named, (QStringList{"best", "last"}));
    QCOMPARE(panel->checkpoint()->currentData().toString(), QStringLiteral("best"));
    QCOMPARE(panel->beam()->text(), QStringLiteral("the run's (3)"));

    QString hypotheses;
    for (const auto& a : store.artifacts(1))
      if (a.kind == "hypotheses") hypotheses = QString::fromStdString(a.path);
    const QStringList expected = file_lines(hypotheses);
    const QStringList source = file_lines(scratch_.filePath("corpus/test.de"));
    QCOMPARE(expected.size(), 30);
    panel->sources()->setPlainText(reversed(source).join('\n') + "\n\n");  // blank tail: dropped
    panel->references()->setPlainText(
        reversed(file_lines(scratch_.filePath("corpus/test.en"))).join('\n'));
    const QString problem = panel->translate();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTableWidget* table = panel->results();
    QCOMPARE(table->rowCount(), 30);
    QCOMPARE(table->columnCount(), 5);  // line, source, translation, reference, sentence BLEU
    const QStringList reference = file_lines(scratch_.filePath("corpus/test.en"));
    for (int row = 0; row < 30; ++row) {
      QCOMPARE(table->item(row, 0)->text(), QString::number(row + 1));
      QCOMPARE(table->item(row, 1)->text(), source[29 - row]);
      QCOMPARE(table->item(row, 2)->text(), expected[29 - row]);
      QCOMPARE(table->item(row, 3)->text(), reference[29 - row]);
      const double bleu =
          fathom::sentence_bleu(expected[29 - row].toStdString(), reference[29 - row].toStdString())
              .score;
      QCOMPARE(table->item(row, 4)->text(), QString::number(bleu, 'f', 1));
    }
    table->sortByColumn(4, Qt::AscendingOrder);  // the worst sentences first, as numbers
    for (int row = 1; row < 30; ++row)
      QVERIFY(table->item(row - 1, 4)->text().toDouble() <= table->item(row, 4)->text().toDouble());
    for (int row = 0; row < 30; ++row)  // each sentence keeps its line in the input
      QCOMPARE(table->item(row, 1)->text(), source[30 - table->item(row, 0)->text().toInt()]);
    table->sortByColumn(0, Qt::AscendingOrder);  // and the lines sort as numbers: 2 before 10
    QCOMPARE(table->item(9, 0)->text(), QStringLiteral("10"));
    // Corpus BLEU does not depend on the order: the run's own test_bleu.
    const QString said = panel->status()->text();
    const auto score = QRegularExpression(R"(BLEU = (\d+\.\d+))").match(said);
    QVERIFY2(score.hasMatch(), qPrintable(said));
    const double test_bleu = run->final_metrics.at(fathom::db::metric::kTestBleu);
    QVERIFY2(std::fabs(score.captured(1).toDouble() - test_bleu) < 0.006,
             qPrintable(said + " vs test_bleu " + QString::number(test_bleu)));
    QVERIFY2(said.contains("30 sentence(s) translated") && said.contains("beam 3"),
             qPrintable(said));

    // The choices reach the command: a kept checkpoint, greedy search.
    panel->checkpoint()->setCurrentIndex(panel->checkpoint()->findData("40"));
    panel->beam()->setValue(1);
    QCOMPARE(panel->commandArguments("/o.txt", ""),
             (QStringList{"translate", "1", "--checkpoint", "40", "--beam", "1", "--out", "/o.txt",
                          "--json"}));
    panel->sources()->setPlainText(source.mid(0, 2).join('\n'));
    panel->references()->clear();
    QVERIFY(panel->translate().isEmpty());
    QCOMPARE(panel->results()->rowCount(), 2);
    QCOMPARE(panel->results()->columnCount(), 3);  // no references: no BLEU
    QVERIFY2(panel->status()->text().contains("run 1's checkpoint update 40, beam 1"),
             qPrintable(panel->status()->text()));

    // The means of the newest kept checkpoints (it kept 3: of 2 and 3), as --average makes them.
    QCOMPARE(panel->checkpoint()->findData("mean:5"), -1);
    const int mean = panel->checkpoint()->findData("mean:2");
    QVERIFY(mean >= 0 && panel->checkpoint()->findData("mean:3") > mean);
    QCOMPARE(panel->checkpoint()->itemText(mean), QStringLiteral("mean of the last 2 kept"));
    panel->checkpoint()->setCurrentIndex(mean);
    QCOMPARE(panel->commandArguments("/o.txt", ""),
             (QStringList{"translate", "1", "--average", "2", "--beam", "1", "--out", "/o.txt",
                          "--json"}));
    QVERIFY(panel->translate().isEmpty());
    QVERIFY2(panel->status()->text().contains(
                 "run 1's mean of the last 2 kept (updates 80 120), beam 1"),
             qPrintable(panel->status()->text()));
  }

  // A row's attention: the real `fathom attention` over the translation shown, drawn per map
  // and head; the mean is the heads' mean, every row of a map a distribution over its keys.
  void aSentencesAttentionOpensFromItsRow() {
    auto store = Store::open(db().toStdString(), fathom::db::OpenMode::ReadOnly);
    RunPage page(store, *store.find_run("1"), {}, run_artifacts_dir(db(), 1).toStdString());
    TranslatePanel* panel = page.translator();
    QVERIFY(panel);
    QVERIFY(!panel->attentionButton()->isEnabled());  // nothing translated, nothing selected
    panel->sources()->setPlainText("der Hund läuft im Park\nein Mann");
    QVERIFY(panel->translate().isEmpty());
    panel->results()->selectRow(0);
    QVERIFY(panel->attentionButton()->isEnabled());
    QString problem;
    AttentionView* view = panel->showAttention(0, &problem);
    QVERIFY2(view, qPrintable(problem));
    QVERIFY(view->isVisible());
    QCOMPARE(view->mapChoice()->currentText(), QStringLiteral("dec.0.enc_attn"));
    QCOMPARE(view->mapChoice()->count(), 3);   // enc self, dec self, dec cross
    QCOMPARE(view->headChoice()->count(), 3);  // the mean, then model.heads = 2
    const auto mean = view->shownValues();
    QCOMPARE(mean.size(), view->rowTokens().size());
    QCOMPARE(view->rowTokens().back(), view->columnTokens().back());  // eos on both sides
    QCOMPARE(static_cast<int>(
                 view->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>()->ticks().size()),
             static_cast<int>(view->columnTokens().size()));  // every token labelled
    view->headChoice()->setCurrentIndex(1);
    const auto first = view->shownValues();
    view->headChoice()->setCurrentIndex(2);
    const auto second = view->shownValues();
    for (size_t q = 0; q < mean.size(); ++q) {
      double sum = 0;
      for (size_t k = 0; k < mean[q].size(); ++k) {
        QVERIFY(std::fabs(mean[q][k] - (first[q][k] + second[q][k]) / 2) < 1e-9);
        sum += mean[q][k];
      }
      QVERIFY(std::fabs(sum - 1) < 1e-5);
    }
    view->mapChoice()->setCurrentIndex(0);  // the encoder: the source against itself
    QCOMPARE(view->rowTokens(), view->columnTokens());
    QCOMPARE(view->shownValues().size(), view->rowTokens().size());
    QVERIFY(view->close());
  }

  void badInputIsSaidBeforeAnythingRuns() {
    auto store = Store::open(db().toStdString(), fathom::db::OpenMode::ReadOnly);
    RunPage page(store, *store.find_run("1"), {}, run_artifacts_dir(db(), 1).toStdString());
    TranslatePanel* panel = page.translator();
    QVERIFY(panel);
    QVERIFY(panel->translate().startsWith("nothing to translate"));
    panel->sources()->setPlainText("der Hund\nein Mann\nim Park");
    panel->references()->setPlainText("the dog");
    QCOMPARE(panel->translate(),
             QStringLiteral("1 references for 3 sentences: give one a sentence, or none"));
    QCOMPARE(panel->results()->rowCount(), 0);
    // What the command refuses comes back as it says it: a checkpoint the rows no longer name.
    panel->references()->clear();
    panel->checkpoint()->addItem("gone", "999");
    panel->checkpoint()->setCurrentIndex(panel->checkpoint()->count() - 1);
    const QString refused = panel->translate();
    QVERIFY2(refused.contains("no 999 checkpoint"), qPrintable(refused));
    QCOMPARE(panel->status()->text(), refused);
  }

  // The command's standard error, less its progress lines: what it said besides counting.
  void aCallKeepsWhatTheCommandSaysAndCountsItsProgress() {
    const QStringList source = file_lines(scratch_.filePath("corpus/test.de"));
    const FathomCall call = call_fathom(nullptr, db(), {"translate", "1"}, "translating",
                                        (source.join('\n') + '\n').toUtf8());
    QVERIFY2(call.problem.isEmpty() && call.exit_code == 0, qPrintable(call.problem + call.err));
    QCOMPARE(text_lines(call.out).size(), 30);  // the translations, on standard output
    QVERIFY2(call.err.contains("30 sentences translated"), qPrintable(call.err));
    QVERIFY2(!call.err.contains("translate 30/30"), qPrintable(call.err));  // read as progress
    QVERIFY2(call.err.count('\n') == 0, qPrintable(call.err));  // the summary line alone
  }

  void aLanguageModelHasNoTranslateTab() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("lm.db").toStdString());
    fathom::db::NewRun r;
    r.name = "lm";
    r.config_json = R"({"model": {"arch": "decoder_only"}})";
    const int64_t id = store.create_run(r);
    RunPage lm(store, *store.find_run(std::to_string(id)));
    QVERIFY(!lm.translator());
    QVERIFY(lm.lmAttention());
    r.name = "mt";
    r.config_json = R"({"model": {"arch": "encoder_decoder"}})";
    const int64_t mt = store.create_run(r);
    RunPage page(store, *store.find_run(std::to_string(mt)));
    QVERIFY(page.translator() &&
            !page.lmAttention());  // before its first checkpoint: nothing to choose
    QCOMPARE(page.translator()->checkpoint()->count(), 0);
    QVERIFY(!page.translator()->translateButton()->isEnabled());
  }

  void progressLinesAreReadAndOtherLinesAreNot() {
    const auto bar = progress_of("translate 12/40 (30%)  ETA 3s");
    QVERIFY(bar && bar->done == 12 && bar->total == 40);
    const auto count = progress_of("[3/8] run 7 (deep-postln): left as it is");
    QVERIFY(count && count->done == 3 && count->total == 8);
    QVERIFY(!progress_of("translate: stopped by signal 2; nothing written"));
    QVERIFY(!progress_of("run 3 (toy): 1/2 of its checkpoints"));
    QVERIFY(!progress_of("eval 5/4 (125%) done"));  // more done than there is: not a count
    QVERIFY(!progress_of("[1/0] run 1"));
  }

 private:
  QString db() const { return scratch_.filePath("runs.db"); }
  QTemporaryDir scratch_;
};

FATHOM_GUI_TEST(RunTranslateTest);

}  // namespace test_run_translate

#include "test_run_translate.moc"
