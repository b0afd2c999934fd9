// One sentence's attention map as a figure (plot/attention_figure.h): the mean of the heads is
// their mean, a head is itself, and every token is labelled however many there are -- where a
// probe's heatmap labels at most 16 of its updates -- also after a round trip through the
// figure JSON.
#include <gtest/gtest.h>

#include <QFile>
#include <QXmlStreamReader>
#include <set>
#include <string>
#include <vector>

#include "plot/attention_figure.h"
#include "plot/export.h"
#include "tests/support/temp_dir.h"

namespace test_attention_figure {
using namespace fathom::plot;

// The texts of an SVG file's <text> elements.
std::multiset<std::string> svg_texts(const std::string& path) {
  QFile file(QString::fromStdString(path));
  std::multiset<std::string> texts;
  if (!file.open(QIODevice::ReadOnly)) return texts;
  QXmlStreamReader xml(&file);
  while (!xml.atEnd())
    if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
      texts.insert(xml.readElementText().trimmed().toStdString());
  return texts;
}

TEST(AttentionFigure, TheMeanIsTheHeadsMeanAndAHeadIsItself) {
  const std::vector<std::vector<std::vector<double>>> probs = {{{1.0, 0.0}, {0.25, 0.75}},
                                                               {{0.5, 0.5}, {0.75, 0.25}}};
  EXPECT_EQ(attention_of(probs, -1), (std::vector<std::vector<double>>{{0.75, 0.25}, {0.5, 0.5}}));
  EXPECT_EQ(attention_of(probs, 1), probs[1]);
  EXPECT_THROW(attention_of(probs, 2), std::out_of_range);
  const Heatmap h =
      attention_figure("dec.0.enc_attn", probs, 0, {{"a", "b"}, {"x", "y"}, false, true});
  EXPECT_EQ(h.title, "dec.0.enc_attn, head 1");
  EXPECT_EQ(h.values, probs[0]);
  EXPECT_EQ(h.x_label, "source (key)");
  EXPECT_EQ(*h.vmin, 0.0);
  EXPECT_EQ(*h.vmax, 1.0);
}

TEST(AttentionFigure, EveryTokenIsLabelled) {
  fathom::testing::TempDir dir;
  AttentionAxes axes;
  for (int i = 0; i < 30; ++i) {
    axes.keys.push_back("k" + std::to_string(i));
    axes.queries.push_back("q" + std::to_string(i));
  }
  axes.source_keys = true;
  std::vector<std::vector<std::vector<double>>> probs(
      1, std::vector<std::vector<double>>(30, std::vector<double>(30, 1.0 / 30)));
  Heatmap h = attention_figure("dec.0.enc_attn", probs, -1, axes);
  // Through the figure JSON (what `fathom export plot figure` reads), then drawn.
  h = std::get<Heatmap>(figure_from_json(to_json(Figure(h))));
  EXPECT_TRUE(h.label_every_cell);
  const std::string path = (dir.path() / "attention.svg").string();
  export_figure(h, path, {parse_size("6x6"), 100});
  const auto texts = svg_texts(path);
  for (const auto& token : axes.keys) EXPECT_EQ(texts.count(token), 1u) << token;
  for (const auto& token : axes.queries) EXPECT_EQ(texts.count(token), 1u) << token;

  h.label_every_cell = false;  // a probe's heatmap: at most 16 labels an axis
  export_figure(h, path, {parse_size("6x6"), 100});
  const auto few = svg_texts(path);
  size_t keys = 0;
  for (const auto& token : axes.keys) keys += few.count(token);
  EXPECT_LE(keys, 16u);
}

}  // namespace test_attention_figure
