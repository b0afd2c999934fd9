// `fathom translate RUN [--checkpoint best|last|average|init|STEP | --average N [--average-by
// best]] [--input FILE]
//                  [--out FILE] [--ref REF] [--beam K] [--lenpen A] [--max-len-a A] [--max-len-b B]
//                  [--max-tokens N] [--threads N] [--device auto|cpu|cuda]`:
// a stored run's model translates text it has never seen -- another test set, a domain of its
// own, sentences to inspect -- one sentence a line (plain or gzip; standard input by default).
// The search is the one the run's final evaluation used (its `eval` section) unless a flag says
// otherwise, so the run's own test source translates to its stored test.hyp. Translations go
// to --out (written whole, then renamed into place: never a short file) or standard output, in
// the input's order; with --ref, corpus BLEU as `fathom bleu` and the run's test_bleu compute
// it. The store is only read: translating changes no run.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/metrics/bleu.h"
#include "base/util/error.h"
#include "base/util/file_write.h"
#include "base/util/progress.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/stop_signals.h"
#include "cli/stored_run_model.h"
#include "core/data/text_reader.h"
#include "core/train/device.h"
#include "core/train/final_evaluation.h"
#include "core/train/stop_request.h"
#include "db/store.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

struct TranslateArgs {
  std::string run;
  ModelChoice model;
  std::string input = "-", out = "-", ref;
  std::optional<int> beam, max_len_b, threads;
  std::optional<double> length_penalty, max_len_a;
  std::optional<int64_t> max_tokens;
  std::string device = "auto";
  bool no_progress = false;
};

// Standard input's lines, read and checked as read_lines() reads a file's (core/data/text_reader.h:
// gzip, a byte-order mark, '\r', invalid UTF-8 and over-long lines); errors name --input.
std::vector<std::string> read_standard_input() {
  std::vector<std::string> lines;
  try {
    LineReader reader{LineReader::StandardInput{}};
    for (std::string line; reader.next(line);) lines.push_back(std::move(line));
  } catch (const InputError& e) {
    throw InputError(e.file(), e.line(), "--input", e.message());
  }
  if (lines.empty()) throw InputError("standard input", 0, "--input", "no lines to translate");
  return lines;
}

// Refused before any work: an output nobody could write, or --json beside translations on
// standard output.
void check_output(const GlobalOptions& global, const TranslateArgs& args) {
  if (args.out == "-") {
    if (global.json)
      throw InputError("fathom translate", 0, "--json",
                       "the translations take standard output: give --out FILE with --json");
    return;
  }
  std::error_code ec;
  if (fs::is_directory(args.out, ec))
    throw InputError(args.out, 0, "--out", "is a folder: name the file to write");
  const fs::path folder = fs::path(args.out).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec))
    throw InputError(args.out, 0, "--out", "its folder " + folder.string() + " does not exist");
}

SearchOptions search_options(const RunConfig& config, const TranslateArgs& args) {
  SearchOptions search = eval_search(config);
  if (args.beam) search.beam = *args.beam;
  if (args.length_penalty) search.length_penalty = *args.length_penalty;
  if (args.max_len_a) search.max_len_a = *args.max_len_a;
  if (args.max_len_b) search.max_len_b = *args.max_len_b;
  return search;
}

// Written whole to a temporary name beside the output, then renamed: an interrupted or failed
// write leaves no short file under the name asked for.
void write_translations(const std::string& out, const std::vector<std::string>& hypotheses) {
  std::string text;
  for (const auto& h : hypotheses) text += h + "\n";
  if (out == "-") {
    std::cout << text << std::flush;
    return;
  }
  const std::string temp = out + ".tmp-" + unique_temp_suffix();
  write_file_or_throw(temp, text, "the translations");
  std::error_code ec;
  fs::rename(temp, out, ec);
  if (ec) {
    fs::remove(temp);
    throw FileWriteError(out + ": cannot write the translations: " + ec.message());
  }
}

// Every sentence of `sources` through the run's model, in the input's order. Ctrl+C (or
// SIGTERM) stops between batches: nothing is written, the exit status is 128 + the signal.
std::vector<std::string> translate_lines(analysis::Subject& run,
                                         const std::vector<std::string>& sources,
                                         const SearchOptions& search, int64_t max_tokens,
                                         torch::Device device, bool progress) {
  const Vocab& vocab = *run.data->vocab;
  std::vector<Example> examples;
  examples.reserve(sources.size());
  for (auto& ids : encode_all(vocab, sources)) examples.push_back(make_example(std::move(ids), {}));
  run.model->to(device);  // search() puts it in eval mode
  install_stop_signals();
  ProgressBar bar("translate", static_cast<int64_t>(examples.size()), progress);
  try {
    auto hypotheses =
        translate(*run.model, examples, vocab, search, max_tokens, device, &bar, &stop_requested());
    bar.finish("");
    return hypotheses;
  } catch (const StopRequested&) {
    std::cerr << "translate: stopped by signal " << stop_signal() << "; nothing written\n";
    throw CommandExit{128 + stop_signal()};
  }
}

// What ran and how fast; with references, BLEU. On standard output when the translations went
// to a file, on standard error when they took standard output.
void report(const GlobalOptions& global, const TranslateArgs& args, const analysis::Subject& run,
            const SearchOptions& search, size_t sentences, double seconds,
            const std::optional<BleuScore>& bleu) {
  if (global.json) {
    nlohmann::ordered_json j;
    j["run"] = *run.run_id;
    j["checkpoint"] = run.checkpoint;
    j["sentences"] = sentences;
    j["seconds"] = seconds;
    j["search"] = {{"beam", search.beam},
                   {"length_penalty", search.length_penalty},
                   {"max_len_a", search.max_len_a},
                   {"max_len_b", search.max_len_b}};
    j["out"] = args.out;
    if (bleu)
      j["bleu"] = {{"score", bleu->score},
                   {"signature", bleu->signature},
                   {"text", bleu->format()},
                   {"ref", args.ref}};
    std::cout << j.dump(1) << "\n";
    return;
  }
  std::FILE* to = args.out == "-" ? stderr : stdout;
  std::fprintf(to,
               "%s: %zu sentence%s translated in %.2f s (%.1f a second); beam %d, length "
               "penalty %g, at most %g x source + %d tokens%s%s\n",
               run.label.c_str(), sentences, sentences == 1 ? "" : "s", seconds,
               seconds > 0 ? sentences / seconds : 0.0, search.beam, search.length_penalty,
               search.max_len_a, search.max_len_b, args.out == "-" ? "" : " -> ",
               args.out == "-" ? "" : args.out.c_str());
  if (bleu) std::fprintf(to, "%s (against %s)\n", bleu->format().c_str(), args.ref.c_str());
}

void run_translate(const GlobalOptions& global, const TranslateArgs& args) {
  // Everything a typo can break is checked before the model loads.
  check_output(global, args);
  const std::vector<std::string> sources =
      args.input == "-" ? read_standard_input() : read_lines(args.input);
  std::vector<std::string> references;
  if (!args.ref.empty()) {
    references = read_lines(args.ref);
    if (references.size() != sources.size())
      throw InputError(args.ref, 0, "--ref",
                       std::to_string(references.size()) + " reference lines for " +
                           std::to_string(sources.size()) + " input lines (" +
                           (args.input == "-" ? std::string("standard input") : args.input) + ")");
  }
  const torch::Device device = resolve_device(args.device);
  auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const db::StorePaths paths = resolve_store_paths(global);
  analysis::Subject run = load_chosen_model(store, paths, args.run, args.model);
  if (is_decoder_only(run.config.model))
    throw InputError(run.label, 0, "model.arch",
                     "a language model (decoder_only) has no source to translate");
  // The run's own threads by default: its test.hyp is then reproduced bit for bit.
  configure_threads(args.threads.value_or(run.config.train.threads));
  const SearchOptions search = search_options(run.config, args);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::string> hypotheses =
      translate_lines(run, sources, search, args.max_tokens.value_or(run.config.data.max_tokens),
                      device, !args.no_progress);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_translations(args.out, hypotheses);
  std::optional<BleuScore> bleu;
  if (!references.empty()) bleu = corpus_bleu(hypotheses, references);
  report(global, args, run, search, sources.size(), seconds, bleu);
}

}  // namespace

void add_translate_command(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<TranslateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "translate",
      "Translate text with a stored run's model (its eval search unless told otherwise); with "
      "--ref, BLEU");
  cmd->add_option("RUN", args->run, "a stored run (id or name)")->required();
  add_model_choice_options(*cmd, args->model,
                           "which model: best (default), last, average "
                           "(eval.average_checkpoints), init or a kept update STEP");
  cmd->add_option("--input", args->input,
                  "sentences to translate, one a line, plain or gzip (default -: standard input)");
  cmd->add_option("--out", args->out, "where the translations go (default -: standard output)");
  cmd->add_option("--ref", args->ref, "references, line i translating input line i: print BLEU");
  cmd->add_option("--beam", args->beam, "beam size, 1 for greedy (default: the run's eval.beam)")
      ->check(positive_number());
  cmd->add_option("--lenpen", args->length_penalty,
                  "length penalty: score / length^A (default: the run's eval.length_penalty)");
  cmd->add_option("--max-len-a", args->max_len_a,
                  "at most A x source length + B tokens (default: the run's eval.max_len_a)")
      ->check(non_negative_number());
  cmd->add_option("--max-len-b", args->max_len_b, "B of that limit (default: eval.max_len_b)")
      ->check(non_negative_number());
  cmd->add_option("--max-tokens", args->max_tokens,
                  "tokens per decode batch, before dividing by the beam (default: the run's "
                  "data.max_tokens)")
      ->check(positive_number());
  cmd->add_option("--threads", args->threads,
                  "CPU threads (default: the run's train.threads; 0: all cores)")
      ->check(non_negative_number());
  cmd->add_option("--device", args->device, "auto, cpu, cuda or cuda:N (default auto)");
  cmd->add_flag("--no-progress", args->no_progress, "no progress bar");
  cmd->callback([&options, args] { run_translate(options, *args); });
}

}  // namespace fathom::cli
