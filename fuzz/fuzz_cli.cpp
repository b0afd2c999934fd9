// Fuzz target: the `fathom` argument parser -- the real app of cli/app.cpp, every command and
// option, stopped once parsing is complete, before any command's callback runs (nothing is
// trained, opened or written). The
// input is the argument list, words separated by NUL bytes (at most 24 words). A parse error
// gets CLI11's message (printed through app.exit into a buffer, as main() does); nothing else
// may escape, and an unknown command or sub-command gets the "did you mean" hint without a crash.
// The front program's choice (cli/command_line.h) is checked too: an argument list `fathom`
// serves itself parses there exactly as in fathom-torch's app -- completes, or is refused with
// the same message.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "fuzz/fuzz_input.h"

namespace {

// Thrown by the root app's parse-complete callback: CLI11 runs it after every option was
// parsed, converted, validated and its requirements checked, and before the sub-commands'
// callbacks. (Clearing those callbacks instead would free the option structs they own.)
struct Parsed {};

// "parsed", or what the refusal printed.
std::string parse_outcome(CLI::App& app, int argc, char** argv) {
  app.parse_complete_callback([] { throw Parsed{}; });
  try {
    app.parse(argc, argv);
    return "no parse-complete callback";
  } catch (const Parsed&) {
    return "parsed";
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    app.exit(e, out, err);
    return out.str() + err.str();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom::cli;
  std::vector<std::string> words{"fathom"};
  std::string word;
  for (size_t i = 0; i < size && words.size() <= 24; ++i) {
    if (data[i] == 0) {
      words.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(data[i]);
    }
  }
  if (words.size() <= 24) words.push_back(word);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());

  CLI::App app{kAppDescription};
  GlobalOptions options;
  build_app(app, options);
  app.parse_complete_callback([] { throw Parsed{}; });
  const int argc = static_cast<int>(argv.size());
  const std::string hint = unknown_command_hint(app, argc, argv.data());
  // "unknown command 'x'", or of a command's sub-commands: "unknown 'db' sub-command 'x'".
  FUZZ_CHECK(hint.empty() || hint.rfind("unknown ", 0) == 0);
  fathom::fuzz::accept_input_errors([&] {
    try {
      app.parse(argc, argv.data());
      FUZZ_CHECK(!"a parse that completes reaches the parse-complete callback");
    } catch (const Parsed&) {
    } catch (const CLI::ParseError& e) {
      std::ostringstream out, err;
      app.exit(e, out, err);
      FUZZ_CHECK(!(out.str() + err.str()).empty());  // every refusal says something
    }
  });
  fathom::fuzz::accept_input_errors([&] {
    CLI::App front{kAppDescription}, whole{kAppDescription};
    GlobalOptions front_options, whole_options;
    build_front_app(front, front_options);
    if (!serves(front, argc, argv.data())) return;
    FUZZ_CHECK(hint.empty());  // what the front serves is a command
    build_app(whole, whole_options);
    FUZZ_CHECK(parse_outcome(front, argc, argv.data()) == parse_outcome(whole, argc, argv.data()));
  });
  return 0;
}
