#pragma once
// Where a model looks while it translates one sentence (the Translate tab's Attention...): each
// attention sub-layer's probabilities as a heatmap, queries down and keys across, labelled with
// the tokens -- one head, or the mean of the heads -- from `fathom attention --json`
// (core/decode/attention_maps.h). A cross-attention map that follows the words is an alignment;
// one column lit for every row is attention collapsed onto one key; an even wash is a decoder
// that reads its source uniformly.
#include <string>
#include <vector>

#include <QDialog>
#include <QString>
#include <QStringList>

class QComboBox;
class QLabel;

namespace fathom::plot {
class PlotWidget;
}

namespace fathom::gui {

// One sentence's maps as the command wrote them.
struct AttentionMaps {
  std::string translation;
  std::vector<std::string> source_tokens, target_tokens, target_in_tokens;
  struct Map {
    std::string name, stack, kind;
    std::vector<std::vector<std::vector<double>>> probs;  // [head][query][key]
  };
  std::vector<Map> maps;
};

// The command's JSON read; false and *error where it is not that.
bool parse_attention_maps(const std::string& json, AttentionMaps* out, QString* error);

class AttentionView;

// `fathom args` (an `attention ... --json` call) on the store at `location`, its maps opened in a
// window of their own titled `title` (deleted when closed); null and *problem where the command
// fails or writes what the app cannot read. The Translate and Attention tabs both open it so.
AttentionView* open_attention_view(QWidget* parent, const QString& location,
                                   const QStringList& args, const QString& title, QString* problem);

class AttentionView : public QDialog {
  Q_OBJECT
 public:
  // Opens on the last decoder layer's cross-attention (a language model: its last layer), mean of
  // its heads.
  AttentionView(AttentionMaps maps, const QString& title, QWidget* parent = nullptr);

  QComboBox* mapChoice() const { return map_; }
  QComboBox* headChoice() const { return head_; }  // item 0: the mean; item h + 1: head h
  plot::PlotWidget* plot() const { return plot_; }
  // The tokens along each axis of the map shown (what the tickers label).
  const std::vector<std::string>& rowTokens() const;
  const std::vector<std::string>& columnTokens() const;
  const std::vector<std::vector<double>>& shownValues() const { return shown_; }

 private:
  void showMap();

  AttentionMaps maps_;
  QComboBox *map_, *head_;
  QLabel* caption_;
  plot::PlotWidget* plot_;
  std::vector<std::vector<double>> shown_;
};

}  // namespace fathom::gui
