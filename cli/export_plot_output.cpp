#include "cli/export_plot_output.h"

#ifdef FATHOM_HAVE_PLOTS
#include <fstream>
#include <iostream>
#include <variant>

#include "base/util/error.h"

namespace fathom::cli {

void add_output_options(CLI::App* cmd, OutputArgs& args) {
  cmd->add_option("--out,-o", args.out, "output file; the format comes from .png, .pdf or .svg")
      ->required();
  cmd->add_option("--size", args.size,
                  "column (3.3 x 2.4 in), page (6.9 x 2.8 in) or WxH in inches, e.g. 3.3x2")
      ->capture_default_str();
  cmd->add_option("--dpi", args.dpi, "PNG resolution")
      ->check(CLI::Range(50, 1200))
      ->capture_default_str();
  cmd->add_option("--title", args.title,
                  "figure title (default: a probe heatmap's run, a beta's stack; else none, as "
                  "papers caption instead)");
  cmd->add_option("--save-json", args.save_json,
                  "also write the figure JSON (re-draw it with `export plot figure`)");
}

void set_title(plot::Figure& figure, const std::string& title) {
  if (title.empty()) return;
  std::visit([&](auto& f) { f.title = title; }, figure);
}

std::string with_suffix(const std::string& path, const std::string& suffix) {
  if (suffix.empty()) return path;
  const auto dot = path.rfind('.');
  return path.substr(0, dot) + "-" + suffix + path.substr(dot);
}

plot::ExportOptions export_options(const OutputArgs& args) {
  plot::ExportOptions options;
  options.size = plot::parse_size(args.size);
  options.dpi = args.dpi;
  return options;
}

void write(plot::Figure figure, const std::string& path, const OutputArgs& args,
           const GlobalOptions& global, nlohmann::json& written) {
  set_title(figure, args.title);
  plot::export_figure(figure, path, export_options(args));
  written.push_back(path);
  if (!global.json) std::cout << "wrote " << path << "\n";
}

void save_json(const std::vector<plot::Figure>& figures, const std::string& path) {
  if (path.empty()) return;
  std::ofstream out(path);
  if (!out) throw InputError(path, 0, "--save-json", "cannot write the file");
  out << (figures.size() == 1 ? plot::to_json(figures[0]) : [&] {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& f : figures) all.push_back(plot::to_json(f));
    return all;
  }()).dump(1) << "\n";
}

void report(const GlobalOptions& global, const nlohmann::json& written, nlohmann::json more) {
  more["files"] = written;
  if (global.json) std::cout << more.dump(2) << "\n";
}

}  // namespace fathom::cli
#endif
