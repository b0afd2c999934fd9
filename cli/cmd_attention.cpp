// `fathom attention RUN --source TEXT [--target TEXT] [--checkpoint C | --average N] [--beam K]
// [--threads N] [--json] [--plot FILE [--map NAME] [--head H] [--size S] [--dpi D]]`: where a
// stored run's model looks while it translates one sentence -- every attention sub-layer's
// probabilities, head by head (core/decode/attention_maps.h), over the target its search produces
// (the run's eval search unless --beam says otherwise) or the one given; a language model's over
// the text itself. As text, each decoder layer's alignment: for every target token, the source
// token its cross-attention (the mean over heads) weighs most; for a language model, the share of
// each layer's attention the first token takes. --json gives every map whole; --plot FILE draws one
// map (--map, default the last decoder layer's cross-attention, a language model's last layer;
// --head, default the mean) as a figure; the desktop app's Translate tab draws them. The store is
// only read.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "base/util/rounded_number.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/stored_run_model.h"
#include "core/decode/attention_maps.h"
#include "core/train/device.h"
#include "core/train/final_evaluation.h"
#include "db/store.h"

#ifdef FATHOM_HAVE_PLOTS
#include "plot/attention_figure.h"
#include "plot/export.h"
#include "plot/output_format.h"
#endif

namespace fathom::cli {
namespace {

struct AttentionArgs {
  std::string run, source;
  ModelChoice model;
  std::optional<std::string> target;
  std::optional<int> beam, threads;
  std::string plot, map, size = "3.3x3";
  int head = 0, dpi = 300;  // head 0: the mean of the heads
};

// A map's probabilities with 6 significant digits each (base/util/rounded_number.h): float32
// values written whole take 17 digits, most of them noise, and the JSON twice the size.
nlohmann::ordered_json rounded_heads(const std::vector<std::vector<std::vector<float>>>& probs) {
  nlohmann::ordered_json heads = nlohmann::ordered_json::array();
  for (const auto& head : probs) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& row : head) {
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (float v : row) values.push_back(rounded_to_significant(v));
      rows.push_back(std::move(values));
    }
    heads.push_back(std::move(rows));
  }
  return heads;
}

nlohmann::ordered_json to_json(const analysis::Subject& run, const SentenceAttention& s,
                               const std::string& source) {
  nlohmann::ordered_json j;
  j["run"] = *run.run_id;
  j["checkpoint"] = run.checkpoint;
  j["source"] = source;
  j["translation"] = s.translation;
  j["source_tokens"] = s.source_tokens;
  j["target_tokens"] = s.target_tokens;
  j["target_in_tokens"] = s.target_in_tokens;
  nlohmann::ordered_json maps = nlohmann::ordered_json::array();
  for (const AttentionMap& m : s.maps)
    maps.push_back({{"name", m.sublayer.name()},
                    {"stack", stack_name(m.sublayer.stack)},
                    {"layer", m.sublayer.layer},
                    {"kind", kind_name(m.sublayer.kind)},
                    {"probs", rounded_heads(m.probs)}});
  j["maps"] = maps;
  return j;
}

// `text` padded with spaces to `width` characters (UTF-8: a piece's "\u2581" is one).
std::string padded(const std::string& text, size_t width) {
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;
  return text + std::string(width > chars ? width - chars : 0, ' ');
}

// A language model's self-attention: how much of it the first key (bos) takes in each layer,
// averaged over the heads and the queries after the first (which can read only bos) -- the
// "attention sink" of Xiao et al. 2023.
void print_first_key_share(const SentenceAttention& s) {
  for (const AttentionMap& m : s.maps) {
    double sum = 0;
    size_t n = 0;
    for (const auto& head : m.probs)
      for (size_t q = 1; q < head.size(); ++q, ++n) sum += head[q][0];
    std::printf(
        "%s: the first token (%s) takes %.2f of the attention (mean of %zu heads, "
        "queries 2..%zu)\n",
        m.sublayer.name().c_str(), s.target_in_tokens.front().c_str(), n ? sum / n : 0.0,
        m.probs.size(), s.target_tokens.size());
  }
}

// For each target token, the source token the heads' mean weighs most, and that weight.
void print_alignments(const analysis::Subject& run, const SentenceAttention& s) {
  std::printf("%s: %s\n", run.label.c_str(), s.translation.c_str());
  if (s.source_tokens.empty()) return print_first_key_share(s);
  for (const AttentionMap& m : s.maps) {
    if (m.sublayer.kind != SublayerKind::EncoderAttention) continue;
    std::printf("%s (mean of %zu heads): target -> the source token it weighs most\n",
                m.sublayer.name().c_str(), m.probs.size());
    for (size_t q = 0; q < s.target_tokens.size(); ++q) {
      std::vector<double> mean(s.source_tokens.size(), 0.0);
      for (const auto& head : m.probs)
        for (size_t k = 0; k < mean.size(); ++k) mean[k] += head[q][k] / m.probs.size();
      const size_t best =
          static_cast<size_t>(std::max_element(mean.begin(), mean.end()) - mean.begin());
      std::printf("  %s -> %s %.2f\n", padded(s.target_tokens[q], 14).c_str(),
                  padded(s.source_tokens[best], 14).c_str(), mean[best]);
    }
  }
}

#ifdef FATHOM_HAVE_PLOTS  // its one caller draws; a headless build (the GPU's) has none
// The map --map names, or the last decoder layer's cross-attention; InputError naming the
// maps there are.
const AttentionMap& chosen_map(const SentenceAttention& s, const std::string& name) {
  const AttentionMap* found = nullptr;
  std::string names;
  for (const AttentionMap& m : s.maps) {
    names += (names.empty() ? "" : ", ") + m.sublayer.name();
    if (name.empty() ? m.sublayer.kind == SublayerKind::EncoderAttention
                     : m.sublayer.name() == name)
      found = &m;
  }
  if (!found && name.empty()) found = &s.maps.back();  // a language model's last layer
  if (!found) throw InputError("fathom attention", 0, "--map", "no map '" + name + "': " + names);
  return *found;
}
#endif

// One map drawn to args.plot (PNG, PDF or SVG from its extension).
void plot_map(const SentenceAttention& s, const AttentionArgs& args) {
#ifdef FATHOM_HAVE_PLOTS
  const AttentionMap& m = chosen_map(s, args.map);
  if (args.head > static_cast<int>(m.probs.size()))
    throw InputError("fathom attention", 0, "--head",
                     m.sublayer.name() + " has " + std::to_string(m.probs.size()) + " heads");
  std::vector<std::vector<std::vector<double>>> probs;
  for (const auto& head : m.probs) {
    auto& rows = probs.emplace_back();
    for (const auto& row : head) rows.emplace_back(row.begin(), row.end());
  }
  const bool encoder = m.sublayer.stack == Stack::Encoder;
  const plot::AttentionAxes axes{query_tokens(s, m), key_tokens(s, m), encoder,
                                 encoder || m.sublayer.kind == SublayerKind::EncoderAttention};
  try {
    plot::export_figure(plot::attention_figure(m.sublayer.name(), probs, args.head - 1, axes),
                        args.plot, {plot::parse_size(args.size), args.dpi});
  } catch (const InputError& e) {  // export_figure names --out, `export plot`'s option
    throw InputError(e.file(), e.line(), "--plot", e.message());
  }
#else
  (void)s;
  throw InputError("fathom attention", 0, "--plot",
                   "this fathom was built without figures (Qt 6 and QCustomPlot); use --json");
#endif
}

void run_attention(const GlobalOptions& global, const AttentionArgs& args) {
#ifdef FATHOM_HAVE_PLOTS
  // What a typo can break, before the model loads.
  if (!args.plot.empty()) {
    plot::format_for_path(args.plot, "--plot");
    plot::parse_size(args.size, "--size");
  }
#endif
  auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  analysis::Subject run =
      load_chosen_model(store, resolve_store_paths(global), args.run, args.model);
  configure_threads(args.threads.value_or(run.config.train.threads));
  SearchOptions search = eval_search(run.config);
  if (args.beam) search.beam = *args.beam;
  SentenceAttention s;
  try {
    s = attention_maps(*run.model, *run.data->vocab, args.source, args.target, search);
  } catch (const std::invalid_argument& e) {
    throw InputError("fathom attention", 0, args.target ? "--target" : "--source", e.what());
  }
  if (!args.plot.empty()) plot_map(s, args);
  if (global.json)
    std::cout << to_json(run, s, args.source).dump() << "\n";
  else
    print_alignments(run, s);
}

}  // namespace

void add_attention_command(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<AttentionArgs>();
  CLI::App* cmd = app.add_subcommand(
      "attention",
      "Where a stored run's model looks while it translates one sentence: every attention "
      "sub-layer's probabilities, head by head (--json), or each decoder layer's alignment");
  cmd->add_option("RUN", args->run, "a stored run (id or name)")->required();
  cmd->add_option("--source", args->source,
                  "the sentence to translate (a language model: the text it reads)")
      ->required();
  cmd->add_option("--target", args->target,
                  "the translation to attend over (default: the model's own, by its search)");
  add_model_choice_options(
      *cmd, args->model, "which model: best (default), last, average, init or a kept update STEP");
  cmd->add_option("--beam", args->beam, "beam size, 1 for greedy (default: the run's eval.beam)")
      ->check(positive_number());
  cmd->add_option("--threads", args->threads,
                  "CPU threads (default: the run's train.threads; 0: all cores)")
      ->check(non_negative_number());
  cmd->add_option("--plot", args->plot, "draw one map to FILE (.png, .pdf or .svg)");
  cmd->add_option("--map", args->map,
                  "with --plot: which map, e.g. enc.0.self_attn, dec.0.self_attn (default: the "
                  "last decoder layer's cross-attention, dec.N.enc_attn)");
  cmd->add_option("--head", args->head, "with --plot: head 1..H, or 0 for their mean")
      ->capture_default_str()
      ->check(non_negative_number());
  cmd->add_option("--size", args->size, "with --plot: column, page or WxH in inches")
      ->capture_default_str();
  cmd->add_option("--dpi", args->dpi, "with --plot: PNG resolution")
      ->capture_default_str()
      ->check(CLI::Range(50, 1200));
  cmd->callback([&options, args] { run_attention(options, *args); });
}

}  // namespace fathom::cli
