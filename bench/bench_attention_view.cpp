// What the Translate tab's attention view costs as models deepen: a sentence's maps as `fathom
// attention --json` writes them (L encoder self-attentions S x S, L decoder self-attentions
// T x T and L cross-attentions T x S, H heads each, random rows that sum to 1), then
//   json   -- the command's JSON text (its size);
//   parse  -- parse_attention_maps, what the app does with the command's output;
//   open   -- the view made and its first map drawn;
//   switch -- another map chosen: the heatmap set up again and replotted (median of 20);
//   paint  -- the view painted (a grab);
// and the process's peak resident set so far (sizes run in increasing order).
//   bench_attention_view [--layers 6,18,60] [--tokens 50] [--heads 8]
// Qt offscreen (QT_QPA_PLATFORM=offscreen unless set); not part of ctest.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <QApplication>
#include <QComboBox>
#include <nlohmann/json.hpp>

#include "base/util/rounded_number.h"
#include "bench/size_list.h"
#include "gui/attention_view.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

long peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

// rows x cols of random distributions.
nlohmann::json random_heads(int heads, int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  nlohmann::json out = nlohmann::json::array();
  for (int h = 0; h < heads; ++h) {
    nlohmann::json head = nlohmann::json::array();
    for (int r = 0; r < rows; ++r) {
      std::vector<float> row(static_cast<size_t>(cols));
      float sum = 0;
      for (float& v : row) sum += (v = u(rng));
      std::vector<double> written;  // as the command writes them: 6 significant digits
      for (float& v : row) written.push_back(fathom::rounded_to_significant(v / sum));
      head.push_back(written);
    }
    out.push_back(head);
  }
  return out;
}

std::string command_json(int layers, int tokens, int heads) {
  std::mt19937 rng(7);
  nlohmann::json j;
  std::vector<std::string> words;
  for (int i = 0; i < tokens; ++i) words.push_back("\u2581w" + std::to_string(i));
  j["translation"] = "...";
  j["source_tokens"] = j["target_tokens"] = j["target_in_tokens"] = words;
  nlohmann::json maps = nlohmann::json::array();
  const std::pair<const char*, const char*> kinds[] = {
      {"enc", "self_attn"}, {"dec", "self_attn"}, {"dec", "enc_attn"}};
  for (const auto& [stack, kind] : kinds)
    for (int l = 0; l < layers; ++l)
      maps.push_back({{"name", std::string(stack) + "." + std::to_string(l) + "." + kind},
                      {"stack", stack},
                      {"layer", l},
                      {"kind", kind},
                      {"probs", random_heads(heads, tokens, tokens, rng)}});
  j["maps"] = maps;
  return j.dump();
}

void bench(int layers, int tokens, int heads) {
  auto t = Clock::now();
  const std::string text = command_json(layers, tokens, heads);
  const double json_ms = ms_since(t);
  fathom::gui::AttentionMaps maps;
  QString error;
  t = Clock::now();
  if (!fathom::gui::parse_attention_maps(text, &maps, &error)) {
    std::fprintf(stderr, "%s\n", qPrintable(error));
    std::exit(1);
  }
  const double parse_ms = ms_since(t);
  t = Clock::now();
  fathom::gui::AttentionView view(std::move(maps), QStringLiteral("bench"));
  view.resize(900, 760);
  const double open_ms = ms_since(t);
  std::vector<double> switches;
  for (int i = 0; i < 20; ++i) {
    t = Clock::now();
    view.mapChoice()->setCurrentIndex(i % view.mapChoice()->count());
    switches.push_back(ms_since(t));
  }
  std::sort(switches.begin(), switches.end());
  t = Clock::now();
  view.grab();
  const double paint_ms = ms_since(t);
  std::printf("%6d %6d %5d %10.1f %9.0f %9.0f %8.0f %9.1f %8.1f %9ld\n", layers, 3 * layers, tokens,
              text.size() / 1048576.0, json_ms, parse_ms, open_ms, switches[10], paint_ms,
              peak_rss_mib());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  std::vector<long> layers = {6, 18, 60}, tokens = {50};
  long heads = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--layers")) layers = fathom::bench::parse_size_list(argv[i + 1]);
    if (!std::strcmp(argv[i], "--tokens")) tokens = fathom::bench::parse_size_list(argv[i + 1]);
    if (!std::strcmp(argv[i], "--heads")) heads = std::atol(argv[i + 1]);
  }
  QApplication app(argc, argv);
  std::printf("%6s %6s %5s %10s %9s %9s %8s %9s %8s %9s\n", "layers", "maps", "tokens", "json_MiB",
              "json_ms", "parse_ms", "open_ms", "switch_ms", "paint_ms", "peak_MiB");
  for (long n : tokens)
    for (long l : layers) bench(static_cast<int>(l), static_cast<int>(n), static_cast<int>(heads));
  return 0;
}
