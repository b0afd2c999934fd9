#include "gui/lm_attention_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "gui/attention_view.h"
#include "gui/checkpoint_choices.h"
#include "gui/fathom_call.h"

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
  const QStringList args{QStringLiteral("attention"),
                         QString::number(run_),
                         "--checkpoint",
                         checkpoint_->currentData().toString(),
                         "--source",
                         text_->text(),
                         "--json"};
  const FathomCall call = call_fathom(
      this, location_(), args, QStringLiteral("Reading the attention of run %1...").arg(run_));
  if (!call.problem.isEmpty()) return fail(call.problem);
  if (call.exit_code != 0)
    return fail(call.err.isEmpty()
                    ? QStringLiteral("`fathom attention` exited with status %1").arg(call.exit_code)
                    : call.err);
  AttentionMaps maps;
  QString error;
  if (!parse_attention_maps(call.out.toStdString(), &maps, &error)) return fail(error);
  auto* view = new AttentionView(
      std::move(maps),
      QStringLiteral("Run %1, %2: %3").arg(run_).arg(checkpoint_->currentText(), text_->text()),
      this);
  view->setAttribute(Qt::WA_DeleteOnClose);
  view->show();
  status_->clear();
  return view;
}

}  // namespace fathom::gui

#include "moc_lm_attention_panel.cpp"  // moc output for lm_attention_panel.h: compiled in this unit
