#include "cli/command_line.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "base/util/error.h"
#include "cli/commands.h"

namespace fathom::cli {

bool serves(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--db" || word == "--artifacts") {  // a global option and its value
      ++i;
      continue;
    }
    const bool global =
        word == "--json" || word.rfind("--db=", 0) == 0 || word.rfind("--artifacts=", 0) == 0;
    if (word.rfind("-", 0) == 0) {
      if (level == &app && !global) return false;  // --help, or no option of fathom's
      continue;  // a global option, or one given after the command (fallthrough)
    }
    const auto subs =
        level->get_subcommands([&](const CLI::App* sub) { return sub->get_name() == word; });
    if (subs.empty()) return false;
    if (subs.front()->get_require_subcommand_min() == 0) return true;  // its words are its own
    level = subs.front();
  }
  return false;  // no command, or a command without its sub-command
}

std::string run_torch_program(char** argv) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "cannot find this program (/proc/self/exe): " + ec.message();
  const std::string torch = (self.parent_path() / "fathom-torch").string();
  // Much of loading LibTorch is page faults in a fresh heap: on huge pages it takes a fifth
  // less CPU (docs/performance.md, "Process start"). A caller's own GLIBC_TUNABLES is kept.
  setenv("GLIBC_TUNABLES", kTorchHeapTunables, /*overwrite=*/0);
  execv(torch.c_str(), argv);
  return "cannot run " + torch + " (" + std::strerror(errno) +
         "): it serves every command that trains or reads a model, and is installed beside "
         "fathom";
}

int run_command_line(CLI::App& app, int argc, char** argv,
                     const std::function<std::string(const std::exception&)>& describe) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // One exit status per kind of outcome (README): CLI11's own codes (106, 109, ...) would
    // make a usage error look different from any other bad input.
    const int code = app.exit(e);  // prints the message (or the help)
    return code == 0 ? 0 : 2;
  } catch (const CommandExit& e) {
    return e.code;
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << describe(e) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace fathom::cli
