#pragma once
// What every `fathom export plot` command shares: the output options (--out, --size, --dpi,
// --title, --save-json), writing a figure, and --json's list of the files written. Its commands
// are cli/cmd_export_plot.cpp and, one a file where they grew large, cmd_export_plot_*.cpp.
#ifdef FATHOM_HAVE_PLOTS
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "plot/export.h"
#include "plot/figure.h"

namespace fathom::cli {

// Options every `export plot` command takes.
struct OutputArgs {
  std::string out;              // --out FILE.{png,pdf,svg}
  std::string size = "column";  // --size column|page|WxH
  int dpi = 300;                // --dpi (PNG)
  std::string title;            // --title
  std::string save_json;        // --save-json FILE: the figure as JSON, to edit and re-draw
};

void add_output_options(CLI::App* cmd, OutputArgs& args);
void set_title(plot::Figure& figure, const std::string& title);
// "fig.png" + "encoder" -> "fig-encoder.png".
std::string with_suffix(const std::string& path, const std::string& suffix);
// The figure size and resolution --size and --dpi ask for.
plot::ExportOptions export_options(const OutputArgs& args);
// Exports `figure` to `path` with the title asked for, adds the path to `written`, and says so
// unless --json.
void write(plot::Figure figure, const std::string& path, const OutputArgs& args,
           const GlobalOptions& global, nlohmann::json& written);
// --save-json: the figures as JSON (one object, or an array of several); nothing for "".
void save_json(const std::vector<plot::Figure>& figures, const std::string& path);
// --json: the files written, and `more` keys beside them.
void report(const GlobalOptions& global, const nlohmann::json& written,
            nlohmann::json more = nlohmann::json::object());

// `export plot budgets` (cli/cmd_export_plot_budgets.cpp).
void add_budgets(CLI::App* plot_cmd, GlobalOptions& global);
// `export plot reach` (cli/cmd_export_plot_reach.cpp).
void add_reach_plot(CLI::App* plot_cmd, GlobalOptions& global);

}  // namespace fathom::cli
#endif
