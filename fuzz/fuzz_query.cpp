// Fuzz target: the runs filter and `fathom runs --where/--sort` (experiments/run_query.h,
// run_selection.h). The input is an expression, a newline, then a run's config_json (any
// bytes). A malformed expression must be a RunQueryError; a parsed one must answer alike
// whether the config was parsed up front (fields_of), is parsed at the first key asked
// (fields_parsing_config), or has the fields named read from its text in one pass
// (fields_parsing_config with the names, as `fathom runs` reads it; config_fields_of, whose
// answers the app's runs filter keeps): each field the expression names, and the match. A
// config whose objects repeat a key is left out of the comparison with the parsed document,
// which keeps the last of them where the one pass may answer from an earlier one
// (experiments/config_leaves.h; no writer Fathom or Python's json uses makes one; found by
// this target's first 60 s run). Every run it matches holds its config words in its config
// text, ASCII case ignored (what a store narrows a listing by).
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "experiments/run_query.h"
#include "experiments/run_selection.h"
#include "fuzz/fuzz_input.h"

namespace {

bool same(const std::optional<fathom::experiments::QueryValue>& a,
          const std::optional<fathom::experiments::QueryValue>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->text == b->text && a->number == b->number);
}

// Whether an object of the JSON text repeats a key.
bool repeats_a_key(const std::string& text) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<std::set<std::string>> open;  // the keys of each object being read
  bool repeated = false;
  auto seen = [&](int, Event event, nlohmann::json& parsed) {
    if (event == Event::object_start) open.emplace_back();
    if (event == Event::object_end && !open.empty()) open.pop_back();
    if (event == Event::key && !open.empty())
      repeated |= !open.back().insert(parsed.get<std::string>()).second;
    return true;
  };
  (void)nlohmann::json::parse(text, seen, /*allow_exceptions=*/false);
  return repeated;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom::experiments;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string expression = input.substr(0, newline);
  fathom::db::RunRecord run;
  run.id = 3;
  run.name = "sweep/norm=pre";
  run.status = "finished";
  run.final_metrics = {{"valid_ppl", 12.5}, {"test_bleu", 20.0}};
  run.config_json = newline == std::string::npos ? "" : input.substr(newline + 1);
  RunQuery query;
  try {
    query = RunQuery::parse(expression);
  } catch (const RunQueryError&) {
    return 0;
  }
  auto parsed = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) parsed = nlohmann::json::object();
  const auto names = lower_case_fields(query.fields());
  const RunFields eager = fields_of(run, parsed), lazy = fields_parsing_config(run),
                  read = fields_parsing_config(run, names),
                  kept = fields_answering_config(run, config_fields_of(run.config_json, names));
  const bool one_pass_alike = !repeats_a_key(run.config_json);
  for (const auto& field : query.fields()) {
    FUZZ_CHECK(same(eager(field), lazy(field)));
    FUZZ_CHECK(!one_pass_alike || same(eager(field), read(field)));
    FUZZ_CHECK(same(read(field), kept(field)));
  }
  FUZZ_CHECK(query.matches(eager) == query.matches(lazy));
  FUZZ_CHECK(!one_pass_alike || query.matches(eager) == query.matches(read));
  FUZZ_CHECK(query.matches(read) == query.matches(kept));
  if (query.matches(eager)) {
    std::string text = run.config_json;
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& word : query.config_words()) FUZZ_CHECK(text.find(word) != std::string::npos);
  }
  // The same through the listing's selection: kept exactly when it matches.
  fathom::fuzz::accept_input_errors([&] {
    RunSelection selection;
    selection.where = expression;
    const auto kept = select_runs({run}, selection, "fuzz");
    FUZZ_CHECK(kept.size() == (query.matches(lazy) ? 1u : 0u));
  });
  return 0;
}
