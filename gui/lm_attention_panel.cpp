#include "gui/lm_attention_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "gui/attention_view.h"
#include "gui/checkpoint_choices.h"

namespace fathom::gui {

LmAttentionPanel::LmAttentionPanel(int64_t run, std::function<QString()> location, QWidget* parent)
    : QWidget(parent), run_(run), location_(std::move(location)) {
  text_ = new QLineEdit;
  text_->setPlaceholderText(QStringLiteral("a text for the model to read"));
  checkpoint_ = new QComboBox;
  show_ = new QPushButton(QStringLiteral("Show attention"));
  show_->setEnabled(false);
  connect(show_, &QPushButton::clicked, this, [this] { showAttention(); });
  connect(text_, &QLineEdit::returnPressed, this, [this] { showAttention(); });
  status_ = new QLabel(QStringLiteral(
      "Where each layer's self-attention looks while the model reads the text: one heatmap a "
      "layer, each row the token it predicts, each column a token it may read (bos first)."));
  status_->setWordWrap(true);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(QStringLiteral("checkpoint")));
  row->addWidget(checkpoint_);
  row->addWidget(text_, 1);
  row->addWidget(show_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addWidget(status_);
  layout->addStretch(1);
}

void LmAttentionPanel::setCheckpoints(const std::vector<db::Artifact>& artifacts) {
  set_checkpoint_choices(checkpoint_, artifacts);
  show_->setEnabled(checkpoint_->count() > 0);
}

AttentionView* LmAttentionPanel::showAttention(QString* problem) {
  auto fail = [this, problem](const QString& why) -> AttentionView* {
    status_->setText(why);
    if (problem) *problem = why;
    return nullptr;
  };
  if (text_->text().trimmed().isEmpty()) return fail(QStringLiteral("type a text first"));
  if (checkpoint_->currentIndex() < 0) return fail(QStringLiteral("the run has no checkpoint"));
  const QStringList args = QStringList{QStringLiteral("attention"), QString::number(run_)} +
                           checkpoint_arguments(checkpoint_->currentData().toString()) +
                           QStringList{"--source", text_->text(), "--json"};
  QString why;
  AttentionView* view = open_attention_view(
      this, location_(), args,
      QStringLiteral("Run %1, %2: %3").arg(run_).arg(checkpoint_->currentText(), text_->text()),
      &why);
  if (!view) return fail(why);
  status_->clear();
  return view;
}

}  // namespace fathom::gui

#include "moc_lm_attention_panel.cpp"  // moc output for lm_attention_panel.h: compiled in this unit
