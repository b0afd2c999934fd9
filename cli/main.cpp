// `fathom`: the headless workbench. Its commands are registered in cli/app.cpp.
#include <iostream>

#include "base/util/blas_setup.h"
#include "base/util/error.h"
#include "cli/commands.h"
#include "core/train/error_text.h"
#include "core/train/threads.h"

int main(int argc, char** argv) {
  fathom::ensure_fast_blas(argv);  // may re-execute this program once, before any work
  // Every command (analyses, decoding) under the trainer's threading policy; training sets it
  // again from train.threads. Without it LibTorch 2.x runs an OpenMP thread per core beside
  // OpenBLAS's, which stalls at each op's barrier when the cores are shared.
  fathom::configure_threads(0);
  using namespace fathom::cli;
  CLI::App app{kAppDescription};
  GlobalOptions options;
  build_app(app, options);

  if (const std::string hint = unknown_command_hint(app, argc, argv); !hint.empty()) {
    std::cerr << "error: " << hint << "\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // One exit status per kind of outcome (README): CLI11's own codes (106, 109, ...) would
    // make a usage error look different from any other bad input.
    const int code = app.exit(e);  // prints the message (or the help)
    return code == 0 ? 0 : 2;
  } catch (const CommandExit& e) {
    return e.code;
  } catch (const fathom::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << fathom::error_text(e) << "\n";
    return 1;
  }
  return 0;
}
