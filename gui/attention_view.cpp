#include "gui/attention_view.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "gui/screen_style.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {

// Every token labelled, at its cell (the renderer labels at most 16 of many columns).
void label_every_cell(QCPAxis* axis, const std::vector<std::string>& tokens) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (size_t i = 0; i < tokens.size(); ++i)
    ticker->addTick(static_cast<double>(i), QString::fromStdString(tokens[i]));
  axis->setTicker(ticker);
}

}  // namespace

bool parse_attention_maps(const std::string& json, AttentionMaps* out, QString* error) {
  const auto j = nlohmann::json::parse(json, nullptr, false);
  try {
    if (!j.is_object()) throw std::runtime_error("not a JSON object");
    out->translation = j.at("translation").get<std::string>();
    out->source_tokens = j.at("source_tokens").get<std::vector<std::string>>();
    out->target_tokens = j.at("target_tokens").get<std::vector<std::string>>();
    out->target_in_tokens = j.at("target_in_tokens").get<std::vector<std::string>>();
    out->maps.clear();
    for (const auto& m : j.at("maps"))
      out->maps.push_back({m.at("name").get<std::string>(), m.at("stack").get<std::string>(),
                           m.at("kind").get<std::string>(),
                           m.at("probs").get<std::vector<std::vector<std::vector<double>>>>()});
    if (out->maps.empty()) throw std::runtime_error("no attention maps");
    return true;
  } catch (const std::exception& e) {
    if (error)
      *error = QStringLiteral("`fathom attention` wrote what the app cannot read: %1")
                   .arg(QString::fromUtf8(e.what()));
    return false;
  }
}

std::vector<std::vector<double>> attention_of(const AttentionMaps::Map& map, int head) {
  if (map.probs.empty()) return {};
  if (head >= 0) return map.probs.at(static_cast<size_t>(head));
  std::vector<std::vector<double>> mean = map.probs.front();
  for (auto& row : mean) std::fill(row.begin(), row.end(), 0.0);
  for (const auto& h : map.probs)
    for (size_t q = 0; q < mean.size(); ++q)
      for (size_t k = 0; k < mean[q].size(); ++k) mean[q][k] += h[q][k] / map.probs.size();
  return mean;
}

AttentionView::AttentionView(AttentionMaps maps, const QString& title, QWidget* parent)
    : QDialog(parent), maps_(std::move(maps)) {
  setWindowTitle(title);
  map_ = new QComboBox;
  for (const auto& m : maps_.maps) map_->addItem(QString::fromStdString(m.name));
  // The last decoder layer's cross-attention: the alignment, where there is one.
  for (int i = map_->count() - 1; i >= 0; --i)
    if (maps_.maps[static_cast<size_t>(i)].kind == "enc_attn") {
      map_->setCurrentIndex(i);
      break;
    }
  head_ = new QComboBox;
  head_->addItem(QStringLiteral("mean of the heads"));
  for (size_t h = 0; h < maps_.maps.front().probs.size(); ++h)
    head_->addItem(QStringLiteral("head %1").arg(h + 1));
  caption_ =
      new QLabel(QStringLiteral("translation: %1").arg(QString::fromStdString(maps_.translation)));
  caption_->setWordWrap(true);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  plot_ = new plot::PlotWidget;
  plot_->setMinimumSize(420, 360);
  auto* choices = new QHBoxLayout;
  choices->addWidget(new QLabel(QStringLiteral("attention")));
  choices->addWidget(map_);
  choices->addWidget(head_);
  choices->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(choices);
  layout->addWidget(caption_);
  layout->addWidget(plot_, 1);
  connect(map_, &QComboBox::currentIndexChanged, this, [this] { showMap(); });
  connect(head_, &QComboBox::currentIndexChanged, this, [this] { showMap(); });
  resize(760, 640);
  showMap();
}

const std::vector<std::string>& AttentionView::rowTokens() const {
  const auto& m = maps_.maps.at(static_cast<size_t>(map_->currentIndex()));
  return m.stack == "enc" ? maps_.source_tokens : maps_.target_tokens;
}

const std::vector<std::string>& AttentionView::columnTokens() const {
  const auto& m = maps_.maps.at(static_cast<size_t>(map_->currentIndex()));
  return m.stack == "enc" || m.kind == "enc_attn" ? maps_.source_tokens : maps_.target_in_tokens;
}

void AttentionView::showMap() {
  const auto& m = maps_.maps.at(static_cast<size_t>(map_->currentIndex()));
  const int head = head_->currentIndex() - 1;  // -1: the mean
  shown_ = attention_of(m, std::min(head, static_cast<int>(m.probs.size()) - 1));
  plot::Heatmap h;
  h.title = m.name + (head < 0 ? ", mean of the heads" : ", head " + std::to_string(head + 1));
  h.row_labels = rowTokens();
  h.col_labels = columnTokens();
  h.values = shown_;
  h.vmin = 0;  // probabilities: one scale for every head and layer
  h.vmax = 1;
  h.colour_title = "attention";
  h.y_label = m.stack == "enc" ? "source (query)" : "target (query: the token it predicts)";
  h.x_label = m.stack == "enc" || m.kind == "enc_attn" ? "source (key)" : "target so far (key)";
  plot::setup_heatmap(*plot_, h, screen_style(font()));
  label_every_cell(plot_->xAxis, h.col_labels);
  label_every_cell(plot_->yAxis, h.row_labels);
  plot_->replot();
}

}  // namespace fathom::gui

#include "moc_attention_view.cpp"  // moc output for attention_view.h: compiled in this unit
