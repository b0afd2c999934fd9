// `fathom`: the headless workbench. The commands that need no model (the store's, `compare`,
// `data`) run here, without LibTorch; every other argument list goes to fathom-torch
// (cli/command_line.h).
#include <iostream>

#include "cli/command_line.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace fathom::cli;
  CLI::App app{kAppDescription};
  GlobalOptions options;
  build_front_app(app, options);
  if (!serves(app, argc, argv)) {
    // Returns only when it could not. (Not inside the `<<` chain: C++17 writes "error: "
    // first, which would then lead fathom-torch's own output.)
    const std::string why = run_torch_program(argv);
    std::cerr << "error: " << why << "\n";
    return 1;
  }
  return run_command_line(app, argc, argv, [](const std::exception& e) { return e.what(); });
}
