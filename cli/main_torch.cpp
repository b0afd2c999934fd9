// fathom-torch: every `fathom` command (cli/app_models.cpp), started by `fathom` for those that
// train, translate or analyse a model (cli/command_line.h). It links LibTorch.
#include <iostream>

#include "base/util/blas_setup.h"
#include "cli/command_line.h"
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
  return run_command_line(app, argc, argv, fathom::error_text);
}
