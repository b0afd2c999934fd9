#include "gui/translate_panel.h"

#include <QComboBox>
#include <QFile>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "base/metrics/bleu.h"
#include "gui/attention_view.h"
#include "gui/checkpoint_choices.h"
#include "gui/fathom_call.h"

namespace fathom::gui {
namespace {

// The beam the run's final evaluation used (its eval section), for the "as the run's" choice.
QString run_beam_text(const std::string& config_json) {
  const auto config = nlohmann::json::parse(config_json, nullptr, false);
  const auto beam = config.is_object() ? config.value("/eval/beam"_json_pointer, nlohmann::json())
                                       : nlohmann::json();
  return beam.is_number_integer() ? QStringLiteral("the run's (%1)").arg(beam.get<int>())
                                  : QStringLiteral("the run's");
}

QPlainTextEdit* text_box(const QString& name, const QString& placeholder) {
  auto* box = new QPlainTextEdit;
  box->setObjectName(name);
  box->setPlaceholderText(placeholder);
  box->setLineWrapMode(QPlainTextEdit::NoWrap);
  box->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return box;
}

// A number shown to `decimals` places and sorted as the number it is.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, int decimals) : QTableWidgetItem(QString::number(value, 'f', decimals)) {
    setData(Qt::UserRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
  }
};

QTableWidgetItem* text_item(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setToolTip(text);  // the whole sentence where the cell cuts it
  return item;
}

// `box` under a title that stays once the box holds text (a placeholder goes).
QWidget* titled(const QString& title, QWidget* box) {
  auto* part = new QWidget;
  auto* layout = new QVBoxLayout(part);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(new QLabel(title));
  layout->addWidget(box, 1);
  return part;
}

}  // namespace

QStringList text_lines(const QString& text) {
  QStringList lines = text.split('\n');
  for (QString& line : lines)
    if (line.endsWith('\r')) line.chop(1);
  while (!lines.isEmpty() && lines.back().trimmed().isEmpty()) lines.removeLast();
  return lines;
}

TranslatePanel::TranslatePanel(const db::RunRecord& run, std::function<QString()> location,
                               QWidget* parent)
    : QWidget(parent), run_(run.id), location_(std::move(location)) {
  sources_ = text_box(QStringLiteral("translate_sources"),
                      QStringLiteral("sentences to translate, one a line"));
  references_ = text_box(QStringLiteral("translate_references"),
                         QStringLiteral("references (optional): one a sentence, for BLEU"));
  checkpoint_ = new QComboBox;
  checkpoint_->setObjectName(QStringLiteral("translate_checkpoint"));
  beam_ = new QSpinBox;
  beam_->setRange(0, 64);
  beam_->setSpecialValueText(run_beam_text(run.config_json));  // 0: the run's own search
  // Alt+T is the page's tab: the button goes with Ctrl+Return, from the text boxes too.
  translate_ = new QPushButton(QStringLiteral("Translate"));
  translate_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
  translate_->setToolTip(QStringLiteral("Translate the sentences (Ctrl+Return)"));
  connect(translate_, &QPushButton::clicked, this, [this] { translate(); });
  results_ = new QTableWidget;
  results_->setObjectName(QStringLiteral("translations"));
  results_->verticalHeader()->hide();  // the line column numbers the rows
  showTranslations({}, {}, {});
  results_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  attention_ = new QPushButton(QStringLiteral("Attention..."));
  attention_->setToolTip(
      QStringLiteral("Where the model looks while it translates the selected "
                     "sentence (or double-click its row)"));
  attention_->setEnabled(false);
  connect(attention_, &QPushButton::clicked, this,
          [this] { showAttention(results_->currentRow()); });
  connect(results_, &QTableWidget::cellDoubleClicked, this,
          [this](int row, int) { showAttention(row); });
  connect(results_, &QTableWidget::itemSelectionChanged, this, [this] {
    attention_->setEnabled(results_->currentRow() >= 0 && results_->columnCount() > 2);
  });
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("translate_status"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* choices = new QHBoxLayout;
  choices->addWidget(new QLabel(QStringLiteral("checkpoint")));
  choices->addWidget(checkpoint_);
  choices->addSpacing(12);
  choices->addWidget(new QLabel(QStringLiteral("beam")));
  choices->addWidget(beam_);
  choices->addStretch(1);
  choices->addWidget(attention_);
  choices->addWidget(translate_);
  auto* inputs = new QSplitter(Qt::Horizontal);
  inputs->addWidget(titled(QStringLiteral("Sentences"), sources_));
  inputs->addWidget(titled(QStringLiteral("References (optional)"), references_));
  auto* parts = new QSplitter(Qt::Vertical);
  parts->addWidget(inputs);
  parts->addWidget(results_);
  parts->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(choices);
  layout->addWidget(parts, 1);
  layout->addWidget(status_);
}

void TranslatePanel::setCheckpoints(const std::vector<db::Artifact>& artifacts) {
  set_checkpoint_choices(checkpoint_, artifacts);
  translate_->setEnabled(checkpoint_->count() > 0);
  if (checkpoint_->count() == 0)
    status_->setText(
        QStringLiteral("no checkpoint yet: the run writes one at its first "
                       "validation"));
}

QStringList TranslatePanel::commandArguments(const QString& out, const QString& ref) const {
  QStringList args = QStringList{QStringLiteral("translate"), QString::number(run_)} +
                     checkpoint_arguments(checkpoint_->currentData().toString());
  if (beam_->value() > 0) args << QStringLiteral("--beam") << QString::number(beam_->value());
  args << QStringLiteral("--out") << out;
  if (!ref.isEmpty()) args << QStringLiteral("--ref") << ref;
  return args << QStringLiteral("--json");
}

QString TranslatePanel::translate() {
  auto fail = [this](const QString& why) {
    status_->setText(why);
    return why;
  };
  const QStringList sources = text_lines(sources_->toPlainText());
  const QStringList references = text_lines(references_->toPlainText());
  if (sources.isEmpty())
    return fail(
        QStringLiteral("nothing to translate: type or paste "
                       "sentences, one a line"));
  if (!references.isEmpty() && references.size() != sources.size())
    return fail(QStringLiteral("%1 references for %2 sentences: give one a sentence, or none")
                    .arg(references.size())
                    .arg(sources.size()));
  if (checkpoint_->currentIndex() < 0) return fail(QStringLiteral("the run has no checkpoint"));
  QTemporaryDir scratch;
  const QString out = scratch.filePath(QStringLiteral("translations.txt"));
  QString ref;
  if (!references.isEmpty()) {
    QFile file(ref = scratch.filePath(QStringLiteral("references.txt")));
    if (!file.open(QIODevice::WriteOnly) || file.write((references.join('\n') + '\n').toUtf8()) < 0)
      return fail(QStringLiteral("cannot write the references to %1").arg(ref));
  }
  status_->clear();
  const FathomCall call = call_fathom(this, location_(), commandArguments(out, ref),
                                      QStringLiteral("Translating with run %1...").arg(run_),
                                      (sources.join('\n') + '\n').toUtf8());
  if (!call.problem.isEmpty()) return fail(call.problem);
  if (call.exit_code != 0)
    return fail(call.err.isEmpty()
                    ? QStringLiteral("`fathom translate` exited with status %1").arg(call.exit_code)
                    : call.err);
  QFile file(out);
  if (!file.open(QIODevice::ReadOnly)) return fail(QStringLiteral("no translations came back"));
  QString text = QString::fromUtf8(file.readAll());
  if (text.endsWith('\n')) text.chop(1);
  const QStringList translations = text.split('\n');
  if (translations.size() != sources.size())
    return fail(QStringLiteral("%1 translations came back for %2 sentences")
                    .arg(translations.size())
                    .arg(sources.size()));
  showTranslations(sources, translations, references);
  // The model the rows came from, whatever is chosen later: their attention is that model's.
  translated_with_ = {checkpoint_->currentData().toString(), checkpoint_->currentText()};
  const auto report = nlohmann::json::parse(call.out.toStdString(), nullptr, false);
  QString said = QStringLiteral("%1 sentence(s) translated").arg(sources.size());
  if (report.is_object()) {
    // A mean names its updates as the command made it ("mean of 2, updates 80 120").
    const QString made = QString::fromStdString(report.value("checkpoint", std::string()));
    const QString model =
        made.startsWith(QStringLiteral("mean of")) && made.contains(QStringLiteral(", "))
            ? checkpoint_->currentText() + " (" + made.mid(made.indexOf(", ") + 2) + ")"
            : "checkpoint " + checkpoint_->currentText();
    said += QStringLiteral(" in %1 s with run %2's %3, beam %4")
                .arg(report.value("seconds", 0.0), 0, 'f', 2)
                .arg(run_)
                .arg(model)
                .arg(report.value("/search/beam"_json_pointer, 0));
    if (report.contains("bleu"))
      said += "\n" + QString::fromStdString(report["bleu"].value("text", std::string()));
  }
  status_->setText(said);
  return {};
}

AttentionView* TranslatePanel::showAttention(int row, QString* problem) {
  auto fail = [this, problem](const QString& why) -> AttentionView* {
    status_->setText(why);
    if (problem) *problem = why;
    return nullptr;
  };
  if (row < 0 || row >= results_->rowCount() || !results_->item(row, 2))
    return fail(QStringLiteral("choose a translated sentence first"));
  const QString source = results_->item(row, 1)->text();
  const QString translation = results_->item(row, 2)->text();
  const QStringList args = QStringList{QStringLiteral("attention"), QString::number(run_)} +
                           checkpoint_arguments(translated_with_.first) +
                           QStringList{"--source", source, "--target", translation, "--json"};
  QString why;
  AttentionView* view = open_attention_view(
      this, location_(), args,
      QStringLiteral("Run %1, %2: %3").arg(run_).arg(translated_with_.second, source), &why);
  if (!view) return fail(why);
  return view;
}

void TranslatePanel::showTranslations(const QStringList& sources, const QStringList& translations,
                                      const QStringList& references) {
  // The sentence's line in the input first: it stays with the sentence when the rows are sorted.
  QStringList headers{QStringLiteral("line"), QStringLiteral("source"),
                      QStringLiteral("translation")};
  // With references, each sentence's BLEU (sacreBLEU's sentence_bleu) to sort the worst first.
  if (!references.isEmpty()) headers << QStringLiteral("reference") << QStringLiteral("BLEU");
  results_->setSortingEnabled(false);  // rows stay where they are put while they are filled
  results_->clear();
  results_->setColumnCount(static_cast<int>(headers.size()));
  results_->setHorizontalHeaderLabels(headers);
  results_->setRowCount(static_cast<int>(sources.size()));
  for (int row = 0; row < sources.size(); ++row) {
    results_->setItem(row, 0, new NumberItem(row + 1, 0));
    results_->setItem(row, 1, text_item(sources[row]));
    results_->setItem(row, 2, text_item(translations[row]));
    if (references.isEmpty()) continue;
    results_->setItem(row, 3, text_item(references[row]));
    const BleuScore bleu =
        sentence_bleu(translations[row].toStdString(), references[row].toStdString());
    results_->setItem(row, 4, new NumberItem(bleu.score, 1));
  }
  auto* header = results_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::Stretch);
  header->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  if (!references.isEmpty()) header->setSectionResizeMode(4, QHeaderView::ResizeToContents);
  header->setSortIndicator(-1, Qt::AscendingOrder);  // the input's order until a click
  results_->setSortingEnabled(true);
  // Long sentences wrap, rows growing as the columns narrow; past a test set's size the rows keep
  // one line (measuring every row at each resize would stall the window) and the tooltip holds
  // the whole text.
  const bool wrap = sources.size() <= 1000;
  results_->setWordWrap(wrap);
  results_->verticalHeader()->setSectionResizeMode(wrap ? QHeaderView::ResizeToContents
                                                        : QHeaderView::Interactive);
}

}  // namespace fathom::gui

#include "moc_translate_panel.cpp"  // moc output for translate_panel.h: compiled in this unit
