#pragma once
// `fathom` is two programs. The one users call (cli/main.cpp) serves the commands that need no
// model -- runs, show, export, report, compare, db, data, sweep status, ... -- and links no
// LibTorch, whose loading alone costs every call ~0.5 s of CPU and 160 MB before any work; every
// other argument list it hands, unchanged, to fathom-torch beside it (cli/main_torch.cpp), which
// serves every command. Both parse with the same command registrations (cli/commands.h).
#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>

namespace fathom::cli {

// Whether `app` (build_front_app's) serves argv: its first word that is no global option names
// one of app's commands, and a command that needs a sub-command is followed by one of app's
// (`sweep status`, not `sweep FILE`). Anything else -- no command, --help alone, an
// unknown word -- is fathom-torch's, which knows every command and says what is wrong.
bool serves(const CLI::App& app, int argc, char** argv);

// The glibc tunables fathom-torch starts with where the caller set none: malloc's heap on
// transparent huge pages (glibc 2.35 and later; ignored by older ones and where the kernel's
// setting is `never`).
inline constexpr const char* kTorchHeapTunables = "glibc.malloc.hugetlb=1";

// Replaces this process with fathom-torch, the program beside this one, on the same argv
// (argv[0] kept, so usage lines still say `fathom`), with kTorchHeapTunables. Returns only when it
// could not, saying why.
std::string run_torch_program(char** argv);

// Parses argv with `app` and runs the command: the exit status of the README (0 done, 1 failed,
// 2 bad input or usage, a command's own CommandExit), errors on stderr, each exception's text
// by `describe`.
int run_command_line(CLI::App& app, int argc, char** argv,
                     const std::function<std::string(const std::exception&)>& describe);

}  // namespace fathom::cli
