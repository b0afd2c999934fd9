#include "gui/attention_view.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "gui/fathom_call.h"
#include "gui/screen_style.h"
#include "plot/attention_figure.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {

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

AttentionView* open_attention_view(QWidget* parent, const QString& location,
                                   const QStringList& args, const QString& title,
                                   QString* problem) {
  const FathomCall call = call_fathom(  // args: attention RUN ...
      parent, location, args,
      QStringLiteral("Reading the attention of run %1...").arg(args.value(1)));
  if (!call.problem.isEmpty()) return *problem = call.problem, nullptr;
  if (call.exit_code != 0) {
    *problem = call.err.isEmpty()
                   ? QStringLiteral("`fathom attention` exited with status %1").arg(call.exit_code)
                   : call.err;
    return nullptr;
  }
  AttentionMaps maps;
  if (!parse_attention_maps(call.out.toStdString(), &maps, problem)) return nullptr;
  auto* view = new AttentionView(std::move(maps), title, parent);
  view->setAttribute(Qt::WA_DeleteOnClose);
  view->show();
  return view;
}

AttentionView::AttentionView(AttentionMaps maps, const QString& title, QWidget* parent)
    : QDialog(parent), maps_(std::move(maps)) {
  setWindowTitle(title);
  map_ = new QComboBox;
  for (const auto& m : maps_.maps) map_->addItem(QString::fromStdString(m.name));
  // The last decoder layer's cross-attention: the alignment, where there is one; else (a
  // language model) the last layer's.
  map_->setCurrentIndex(map_->count() - 1);
  for (int i = map_->count() - 1; i >= 0; --i)
    if (maps_.maps[static_cast<size_t>(i)].kind == "enc_attn") {
      map_->setCurrentIndex(i);
      break;
    }
  head_ = new QComboBox;
  head_->addItem(QStringLiteral("mean of the heads"));
  for (size_t h = 0; h < maps_.maps.front().probs.size(); ++h)
    head_->addItem(QStringLiteral("head %1").arg(h + 1));
  // A language model's maps are over the text it read; a translation model's over its output.
  caption_ = new QLabel(
      (maps_.source_tokens.empty() ? QStringLiteral("text: %1") : QStringLiteral("translation: %1"))
          .arg(QString::fromStdString(maps_.translation)));
  caption_->setObjectName(QStringLiteral("attention_caption"));
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
  const int head = std::min(head_->currentIndex() - 1, static_cast<int>(m.probs.size()) - 1);
  plot::AttentionAxes axes{rowTokens(), columnTokens(), m.stack == "enc",
                           m.stack == "enc" || m.kind == "enc_attn"};
  const plot::Heatmap h = plot::attention_figure(m.name, m.probs, head, axes);
  shown_ = h.values;
  plot::setup_heatmap(*plot_, h, screen_style(font()));
  plot_->replot();
}

}  // namespace fathom::gui

#include "moc_attention_view.cpp"  // moc output for attention_view.h: compiled in this unit
