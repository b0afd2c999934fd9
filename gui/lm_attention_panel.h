#pragma once
// The run page's Attention tab, for a language model (model.arch: decoder_only): a text of one's
// own through one of the run's checkpoints, and where each layer's self-attention looks while the
// model reads it (gui/attention_view.h) -- a first token taking most of every row is the attention
// sink. `fathom attention` does the work (the app never links LibTorch: gui/fathom_call.h).
#include <cstdint>
#include <functional>
#include <vector>

#include <QString>
#include <QWidget>

#include "db/records.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace fathom::gui {

class AttentionView;

class LmAttentionPanel : public QWidget {
  Q_OBJECT
 public:
  // `location`: the store's location when the button is pressed.
  LmAttentionPanel(int64_t run, std::function<QString()> location, QWidget* parent = nullptr);

  // The checkpoints to choose from, from the run's rows (gui/checkpoint_choices.h).
  void setCheckpoints(const std::vector<db::Artifact>& artifacts);
  // The text's attention maps in a window of their own, or null and *problem (shown too).
  AttentionView* showAttention(QString* problem = nullptr);

  QLineEdit* text() const { return text_; }
  QComboBox* checkpoint() const { return checkpoint_; }
  QPushButton* showButton() const { return show_; }
  QLabel* status() const { return status_; }

 private:
  int64_t run_;
  std::function<QString()> location_;
  QLineEdit* text_;
  QComboBox* checkpoint_;
  QPushButton* show_;
  QLabel* status_;
};

}  // namespace fathom::gui
