#pragma once
// The run page's Translate tab: sentences of one's own (typed or pasted, one a line) through the
// run's model, shown beside their sources -- to see what a model does with text it has never
// seen. `fathom translate` does the work (the app never links LibTorch: gui/fathom_call.h), with
// the checkpoint and beam chosen here, so a run's own test source gives its stored test.hyp;
// with references, corpus BLEU as the run's test_bleu computes it. A sentence's attention maps
// open from its row (gui/attention_view.h).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "db/records.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace fathom::gui {

class AttentionView;

class TranslatePanel : public QWidget {
  Q_OBJECT
 public:
  // `location`: the store's location when Translate is pressed (the page's store may reconnect).
  TranslatePanel(const db::RunRecord& run, std::function<QString()> location,
                 QWidget* parent = nullptr);

  // The checkpoints to choose from, from the run's rows (best, last, averaged, kept ones); the
  // one chosen stays chosen while it exists.
  void setCheckpoints(const std::vector<db::Artifact>& artifacts);
  // `fathom translate` for the choices made, translations to `out`, scored against `ref` when
  // it is not "".
  QStringList commandArguments(const QString& out, const QString& ref) const;
  // Translates the sources and shows them; "" or what went wrong (shown too).
  QString translate();
  // Where the model looks while it translates the sentence in results row `row` (`fathom
  // attention` over the translation shown): a window of its own, or null and *problem.
  AttentionView* showAttention(int row, QString* problem = nullptr);

  QPlainTextEdit* sources() const { return sources_; }
  QPlainTextEdit* references() const { return references_; }
  QComboBox* checkpoint() const { return checkpoint_; }
  QSpinBox* beam() const { return beam_; }
  QPushButton* translateButton() const { return translate_; }
  QPushButton* attentionButton() const { return attention_; }
  QTableWidget* results() const { return results_; }
  QLabel* status() const { return status_; }

 private:
  void showTranslations(const QStringList& sources, const QStringList& translations,
                        const QStringList& references);

  int64_t run_;
  std::function<QString()> location_;
  QPlainTextEdit *sources_, *references_;
  QComboBox* checkpoint_;
  QSpinBox* beam_;
  QPushButton *translate_, *attention_;
  QTableWidget* results_;
  QLabel* status_;
  std::pair<QString, QString> translated_with_;  // the rows' checkpoint: its choice, label
};

// The lines of a text box, as `fathom translate` gets them: trailing blank lines dropped.
QStringList text_lines(const QString& text);

}  // namespace fathom::gui
