// The runs table's filter language (experiments/run_query.h), against runs whose answers are
// known by construction: which runs each expression keeps, how a field is found (own field,
// final metric, dotted config key, its last part), and the error of each malformed text.
#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "experiments/run_query.h"

namespace fathom::experiments {
namespace test_run_query {

struct Run {
  db::RunRecord record;
  nlohmann::json config;
};

// Four runs of a depth sweep: norm x lr, one diverged, one without test_bleu.
std::vector<Run> runs() {
  std::vector<Run> out;
  auto add = [&](int64_t id, const std::string& norm, double lr, const std::string& status,
                 double valid_ppl, std::optional<double> bleu) {
    Run r;
    r.record.id = id;
    r.record.name = "depth/norm=" + norm + ",lr=" + std::to_string(lr);
    r.record.sweep = "depth";
    r.record.status = status;
    r.record.updates = 100 * id;
    r.record.final_metrics["valid_ppl"] = valid_ppl;
    if (bleu) r.record.final_metrics["test_bleu"] = *bleu;
    if (status == "diverged") r.record.diverged_step = 42;
    r.config = {{"model", {{"norm", norm}, {"dropout", 0.1}}},
                {"train", {{"lr", lr}, {"dropout", 0.0}, {"seed", 1}}}};
    out.push_back(r);
  };
  add(1, "pre", 0.001, "finished", 2.5, 30.0);
  add(2, "post", 0.001, "finished", 3.5, 28.0);
  add(3, "pre", 0.002, "finished", 2.9, std::nullopt);
  add(4, "post", 0.002, "diverged", 1e9, 0.0);
  return out;
}

// The ids of the runs `text` keeps.
std::vector<int64_t> kept(const std::string& text) {
  const RunQuery query = RunQuery::parse(text);
  std::vector<int64_t> ids;
  for (const Run& r : runs())
    if (query.matches(fields_of(r.record, r.config))) ids.push_back(r.record.id);
  return ids;
}

using Ids = std::vector<int64_t>;

TEST(RunQuery, TheIssuesExampleAndItsParts) {
  EXPECT_EQ(kept("norm=pre and valid_ppl<3 and status=finished"), (Ids{1, 3}));
  EXPECT_EQ(kept("norm=pre"), (Ids{1, 3}));
  EXPECT_EQ(kept("valid_ppl<3"), (Ids{1, 3}));
  EXPECT_EQ(kept("valid_ppl <= 2.9"), (Ids{1, 3}));  // 2.9 equals 2.9
  EXPECT_EQ(kept("valid_ppl>3"), (Ids{2, 4}));
  EXPECT_EQ(kept("STATUS = Finished"), (Ids{1, 2, 3}));  // keywords and = ignore case
  EXPECT_EQ(kept(""), (Ids{1, 2, 3, 4}));
  EXPECT_EQ(kept("   "), (Ids{1, 2, 3, 4}));
}

TEST(RunQuery, OrNotParenthesesAndWordsSideBySide) {
  EXPECT_EQ(kept("norm=post or lr=0.002"), (Ids{2, 3, 4}));
  // and binds tighter: post or (pre and lr=0.002)
  EXPECT_EQ(kept("norm=post or norm=pre and lr=0.002"), (Ids{2, 3, 4}));
  EXPECT_EQ(kept("(norm=post or norm=pre) and lr=0.002"), (Ids{3, 4}));
  EXPECT_EQ(kept("not status=diverged and norm=post"), (Ids{2}));
  EXPECT_EQ(kept("norm=post lr=0.001"), (Ids{2}));  // side by side: and
  EXPECT_EQ(kept("norm!=post"), (Ids{1, 3}));
}

TEST(RunQuery, BareWordsSearchNameStatusAndSweep) {
  EXPECT_EQ(kept("post"), (Ids{2, 4}));               // in the name
  EXPECT_EQ(kept("diverged"), (Ids{4}));              // the status
  EXPECT_EQ(kept("DEPTH"), (Ids{1, 2, 3, 4}));        // the sweep, any case
  EXPECT_EQ(kept("\"norm=pre\""), (Ids{1, 3}));       // quoted: a word, though it holds '='
  EXPECT_EQ(kept("name~\"lr=0.002\""), (Ids{3, 4}));  // a value holding '=' is quoted
}

TEST(RunQuery, FieldsComeFromTheRunItsMetricsAndItsConfig) {
  EXPECT_EQ(kept("id>=3"), (Ids{3, 4}));
  EXPECT_EQ(kept("updates=200"), (Ids{2}));
  EXPECT_EQ(kept("diverged_step=42"), (Ids{4}));
  EXPECT_EQ(kept("model.norm=pre"), (Ids{1, 3}));  // dotted config key
  EXPECT_EQ(kept("train.lr>0.0015"), (Ids{3, 4}));
  EXPECT_EQ(kept("seed=1"), (Ids{1, 2, 3, 4}));  // the last part alone where unique
  // dropout is model.dropout and train.dropout: ambiguous, so no run has it...
  EXPECT_EQ(kept("dropout=0.1"), Ids{});
  EXPECT_EQ(kept("model.dropout=0.1"), (Ids{1, 2, 3, 4}));  // ...written in full it is found
  // A run without the field fails every comparison on it: run 3 has no test_bleu.
  EXPECT_EQ(kept("test_bleu>=0"), (Ids{1, 2, 4}));
  EXPECT_EQ(kept("test_bleu!=0"), (Ids{1, 2}));
  EXPECT_EQ(RunQuery::parse("norm=pre and test_bleu>5 or x~y").fields(),
            (std::vector<std::string>{"norm", "test_bleu", "x"}));
}

// The field's value as text, or "(none)".
std::string shown(const RunFields& fields, const std::string& name) {
  const auto v = fields(name);
  return v ? v->text : "(none)";
}

// Each kind of leaf as it is written out -- a number to 12 significant digits ("%.12g"), a boolean,
// a list as JSON, null as no field -- the same whether the config was parsed up front or is parsed
// from config_json at the first key asked (fields_parsing_config), and a config_json that is no
// JSON has no keys but keeps the run's own fields and metrics.
TEST(RunQuery, EveryLeafReadsAlikeFromAParsedConfigAndFromItsText) {
  db::RunRecord run;
  run.id = 7;
  run.status = "finished";
  run.final_metrics["valid_ppl"] = 12.25;
  const nlohmann::json config = {
      {"model", {{"norm", "pre"}, {"dropout", 0.1}, {"tied", true}, {"sizes", {1, 2}}}},
      {"train",
       {{"lr", 1e-05}, {"warmup", 4000}, {"dropout", nullptr}, {"wd", 0.000123456789012345}}},
      {"data", {{"extra", nlohmann::json::object()}}}};
  run.config_json = config.dump();
  const RunFields parsed = fields_of(run, config), lazy = fields_parsing_config(run);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"model.norm", "pre"},
      {"norm", "pre"},
      {"model.dropout", "0.1"},
      {"dropout", "0.1"},  // train.dropout is null: no leaf, so the last part is one key's
      {"tied", "true"},
      {"sizes", "[1,2]"},
      {"lr", "1e-05"},
      {"warmup", "4000"},
      {"wd", "0.000123456789012"},
      {"train.dropout", "(none)"},
      {"data.extra", "(none)"},
      {"model", "(none)"},
      {"MODEL.NORM", "pre"},
      {"valid_ppl", "12.25"},
      {"id", "7"},
      {"status", "finished"}};
  std::vector<std::string> names;  // each read in one pass of the text, without parsing it
  for (const auto& [field, text] : expected) names.push_back(field);
  const RunFields read = fields_parsing_config(run, lower_case_fields(names));
  // The app's filter asks config keys through a lookup it keeps (config_fields_of): here one
  // field is read in one pass, every other answered by parsing the text, alike.
  const RunFields answered =
      fields_answering_config(run, config_fields_of(run.config_json, lower_case_fields({"norm"})));
  for (const auto& [field, text] : expected) {
    EXPECT_EQ(shown(parsed, field), text) << field;
    EXPECT_EQ(shown(lazy, field), text) << field;
    EXPECT_EQ(shown(read, field), text) << field;
    EXPECT_EQ(shown(answered, field), text) << field;
  }
  run.config_json = "model: {norm: pre}";  // YAML, not JSON
  const RunFields broken = fields_parsing_config(run);
  EXPECT_EQ(shown(broken, "norm"), "(none)");
  EXPECT_EQ(shown(broken, "valid_ppl"), "12.25");
}

// The texts a store may narrow a listing with (config_words): the values of the top-level
// config equalities that only a config leaf can equal, as JSON writes such a leaf, and none
// where a match need not hold it -- under or/not, a number (lr=0.001, also quoted: "0.001"
// equals the number's text), a run's own field, a contains or an order, a value needing quotes.
TEST(RunQuery, ConfigWordsAreTheValuesOfTopLevelConfigEqualities) {
  using Words = std::vector<std::string>;
  auto words = [](const std::string& text) { return RunQuery::parse(text).config_words(); };
  // A string leaf is written in quotes ("precision" holds pre, not "pre"); true and false bare.
  EXPECT_EQ(words("norm=pre"), Words{"\"pre\""});
  EXPECT_EQ(words("model.norm=Pre and valid_ppl<3 and activation=gelu"),
            (Words{"\"pre\"", "\"gelu\""}));
  EXPECT_EQ(words("(norm=pre and (act=gelu and x=y_z))"),
            (Words{"\"pre\"", "\"gelu\"", "\"y_z\""}));
  EXPECT_EQ(words("norm=pre lr=0.001"), Words{"\"pre\""});  // side by side: and
  EXPECT_EQ(words("tied=TRUE and x=false"), (Words{"true", "false"}));
  for (const std::string none :
       {"", "norm=pre or norm=post", "not norm=pre", "norm!=pre", "norm~pre", "lr=0.001",
        "lr=\"0.001\"", "seed=1e3", "x=inf", "status=finished", "NAME=a", "sweep=depth", "host=n1",
        "device=cpu", "norm=\"pre ln\"", "norm=\"a/b\"", "pre", "valid_ppl<3"})
    EXPECT_EQ(words(none), Words{}) << none;
}

// The invariant a store's narrowing rests on: every run an expression keeps holds each of its
// config words in its config text, ASCII case ignored.
TEST(RunQuery, EveryRunKeptHoldsTheConfigWordsInItsText) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  int checked = 0;
  for (const std::string text :
       {"norm=pre", "norm=PRE and lr=0.002", "model.norm=post and valid_ppl>3", "seed=1",
        "norm=pre status=finished", "model.dropout=0.1 and norm=post"}) {
    const RunQuery query = RunQuery::parse(text);
    for (const auto& r : runs()) {
      if (!query.matches(fields_of(r.record, r.config))) continue;
      for (const auto& word : query.config_words()) {
        EXPECT_NE(lower(r.config.dump()).find(lower(word)), std::string::npos) << text;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2 + 1 + 2 + 0 + 2 + 2);  // runs kept times words: none were skipped
}

// The one-pass read of named leaves (ConfigLeaves, behind fields_parsing_config's names) answers
// as the parsed document does, for every field of random configs: nested objects, lists (of
// objects too, never looked into), nulls, keys holding dots, last parts several keys share, a
// root that is no object, and texts cut short -- each name asked alone and all at once.
TEST(RunQuery, NamedLeavesReadFromTheTextAnswerAsTheParsedConfig) {
  std::mt19937 rng(7);
  const std::vector<std::string> keys = {"a", "b", "norm", "lr", "x.y", "seed"};
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  std::function<nlohmann::json(int)> value = [&](int depth) -> nlohmann::json {
    switch (pick(depth > 2 ? 6 : 8)) {
      case 0:
        return nullptr;
      case 1:
        return pick(2) == 0;
      case 2:
        return static_cast<int>(pick(100)) - 50;
      case 3:
        return 1e-4 * static_cast<double>(pick(1000));
      case 4:
        return keys[pick(keys.size())];
      case 5:
        return nlohmann::json::array({1, "pre", nlohmann::json{{"norm", "post"}}});
      default: {
        nlohmann::json object = nlohmann::json::object();
        for (size_t i = 0, n = pick(4); i < n; ++i)
          object[keys[pick(keys.size())]] = value(depth + 1);
        return object;
      }
    }
  };
  const std::vector<std::string> fields = {"a",     "b",      "norm",    "lr",    "seed",
                                           "a.b",   "b.norm", "a.a.lr",  "x.y",   "x",
                                           "a.x.y", "y",      "a.b.c.d", "x.y.a", "x.y.norm"};
  int found = 0;
  for (int round = 0; round < 400; ++round) {
    db::RunRecord run;
    nlohmann::json config = round % 50 == 49 ? value(3) : value(0);  // now and then no object
    if (!config.is_object() && round % 50 != 49) config = {{"a", config}};
    run.config_json = config.dump();
    if (round % 40 == 39)
      run.config_json = run.config_json.str().substr(0, run.config_json.size() / 2);  // not JSON
    const RunFields all_at_once = fields_parsing_config(run, lower_case_fields(fields));
    const RunFields parsed = fields_parsing_config(run);
    for (const auto& f : fields) {
      const RunFields alone = fields_parsing_config(run, lower_case_fields({f}));
      EXPECT_EQ(shown(all_at_once, f), shown(parsed, f)) << f << " of " << run.config_json;
      EXPECT_EQ(shown(alone, f), shown(parsed, f)) << f << " of " << run.config_json;
      found += shown(parsed, f) != "(none)";
    }
  }
  EXPECT_GT(found, 250);  // the configs had the fields often enough to tell
}

// Each malformed text: the reason and its column.
TEST(RunQuery, MalformedExpressionsSayWhatAndWhere) {
  struct Case {
    std::string text, words;
    int column;
  };
  const std::vector<Case> cases = {
      {"valid_ppl<", "expected a value after '<'", 11},
      {"valid_ppl<abc", "'<' needs a number, got 'abc'", 11},
      {"(norm=pre", "'(' is never closed", 1},
      {"norm=pre)", "')' without its '('", 9},
      {"norm=pre and", "the expression ends where a term should be", 13},
      {"or norm=pre", "'or' needs a term before it", 1},
      {"norm=\"pre", "the quote is never closed", 6},
      {"norm ! pre", "'!' must be '!='", 6},
      {"\"norm\"=pre", "a field name is a word, not a quoted text", 1},
      {"= pre", "expected a field or a word, found '='", 1},
  };
  for (const Case& c : cases) {
    try {
      RunQuery::parse(c.text);
      ADD_FAILURE() << c.text << ": parsed";
    } catch (const RunQueryError& e) {
      EXPECT_NE(std::string(e.what()).find(c.words), std::string::npos)
          << c.text << ": " << e.what();
      EXPECT_EQ(e.column(), c.column) << c.text << ": " << e.what();
    }
  }
}

}  // namespace test_run_query
}  // namespace fathom::experiments
