// Figures of `fathom report`: training curves through plot/ (PNG, page width), or nothing in
// a build without Qt.
#include <algorithm>
#include <filesystem>

#include "cli/commands.h"
#include "experiments/report.h"
#ifdef FATHOM_HAVE_PLOTS
#include "plot/budgets_figure.h"
#include "plot/export.h"
#include "plot/importance_figure.h"
#include "plot/lr_sensitivity_figure.h"
#include "plot/probe_figures.h"
#include "plot/reach_figure.h"
#include "plot/store_curves.h"
#endif

namespace fathom::cli {

#ifdef FATHOM_HAVE_PLOTS
namespace {
// The legend stands above the axes, a line an entry (a sweep's groups: a dozen or more): the
// page figure's height squeezed the axes of a 12-group figure to 0.8 in under a 2 in legend.
// Up to 40 entries (8.8 in, about a page's text): a sweep of 210 runs made a figure 38 in
// tall. A legend of more is no help to a reader; at page height the figure leaves it out and
// says so (plot/render_common.h finish_legend).
double report_figure_height(size_t legend_entries) {
  constexpr size_t kMostEntries = 40;
  if (legend_entries > kMostEntries) return plot::kPageSize.height_in;
  return std::max(plot::kPageSize.height_in, 2.0 + 0.17 * static_cast<double>(legend_entries));
}
}  // namespace
#endif

std::function<std::string(const experiments::CurvesRequest&)> report_curves_renderer(
    const db::Store& store, const std::string& out_dir) {
#ifdef FATHOM_HAVE_PLOTS
  return [&store, out_dir](const experiments::CurvesRequest& request) -> std::string {
    plot::CurveQuery query;
    query.runs = request.runs;
    query.references = request.references;
    query.metrics = request.metrics;
    query.colour_by = request.colour_by;
    query.group_by = request.group_by;
    query.log_y = request.log_y;
    query.x = plot::parse_x_axis(request.x);
    query.at = request.at;
    auto figure = plot::curves_from_store(store, query);
    figure.title = request.title;
    const std::string file = request.file_stem + ".png";
    plot::ExportOptions export_options;
    export_options.size = plot::kPageSize;  // full text width: run names in the legend fit
    export_options.size.height_in =
        report_figure_height(figure.curves.size() + !figure.band.empty());
    plot::export_figure(figure, (std::filesystem::path(out_dir) / file).string(), export_options);
    return file;
  };
#else
  (void)store;
  (void)out_dir;
  return {};
#endif
}

#ifdef FATHOM_HAVE_PLOTS
namespace {

// `<stem>.png` at page width in out_dir, drawn by draw(path, options); its file name.
template <typename Draw>
std::string page_png(const std::string& out_dir, const std::string& stem, Draw draw) {
  const std::string file = stem + ".png";
  plot::ExportOptions export_options;
  export_options.size = plot::kPageSize;
  draw((std::filesystem::path(out_dir) / file).string(), export_options);
  return file;
}

}  // namespace
#endif

std::function<std::string(const experiments::LrSensitivity&, const std::string&)>
report_lr_sensitivity_renderer(const std::string& out_dir) {
#ifdef FATHOM_HAVE_PLOTS
  return [out_dir](const experiments::LrSensitivity& s, const std::string& stem) {
    return page_png(out_dir, stem, [&](const std::string& path, const plot::ExportOptions& o) {
      plot::export_figure(plot::lr_sensitivity_figure(s), path, o);
    });
  };
#else
  (void)out_dir;
  return {};
#endif
}

std::function<std::string(const experiments::HparamImportance&, const std::string&)>
report_importance_renderer(const std::string& out_dir) {
#ifdef FATHOM_HAVE_PLOTS
  return [out_dir](const experiments::HparamImportance& h, const std::string& stem) {
    return page_png(out_dir, stem, [&](const std::string& path, const plot::ExportOptions& o) {
      plot::export_importance(plot::importance_figure(h), path, o);
    });
  };
#else
  (void)out_dir;
  return {};
#endif
}

experiments::BudgetsRenderer report_budgets_renderer(const db::Store& store,
                                                     const std::string& out_dir) {
#ifdef FATHOM_HAVE_PLOTS
  return [&store, out_dir](const experiments::BudgetsRequest& r) {
    plot::BudgetsQuery q;
    q.sweep = r.sweep;
    q.where = r.where;
    q.x = r.x;
    q.rows = r.rows;
    q.metric = r.metric;
    q.budgets = {r.at};
    q.agg = r.agg;
    q.select_by = r.select_by;
    const plot::BudgetsFigure made = plot::budgets_figure(store, q);
    return page_png(out_dir, r.file_stem,
                    [&](const std::string& path, const plot::ExportOptions& o) {
                      plot::export_figure(made.figure, path, o);
                    });
  };
#else
  (void)store;
  (void)out_dir;
  return {};
#endif
}

std::function<std::string(const experiments::ReachFigureRequest&)> report_reach_renderer(
    const std::string& out_dir) {
#ifdef FATHOM_HAVE_PLOTS
  return [out_dir](const experiments::ReachFigureRequest& r) {
    return page_png(
        out_dir, r.file_stem, [&](const std::string& path, const plot::ExportOptions& o) {
          plot::export_figure(plot::reach_figure(r.table, r.options, r.fit, r.b_simple), path, o);
        });
  };
#else
  (void)out_dir;
  return {};
#endif
}

std::function<std::vector<std::string>(const std::vector<std::pair<int64_t, db::ProbeSeries>>&,
                                       const std::string&, const std::string&)>
report_probes_renderer(const db::Store& store, const std::string& out_dir) {
#ifdef FATHOM_HAVE_PLOTS
  return [&store, out_dir](const std::vector<std::pair<int64_t, db::ProbeSeries>>& runs,
                           const std::string& probe, const std::string& stem) {
    std::vector<std::pair<std::string, db::ProbeSeries>> labelled;
    for (const auto& [id, series] : runs) {
      const auto run = store.find_run(std::to_string(id));
      labelled.emplace_back(run ? plot::probe_run_label(*run) : "#" + std::to_string(id), series);
    }
    std::vector<std::string> files;
    const auto heatmaps = plot::probe_heatmaps(labelled, probe, plot::HeadReduction::Max);
    for (size_t i = 0; i < heatmaps.size(); ++i) {
      const std::string file = stem + "-run" + std::to_string(runs[i].first) + ".png";
      plot::ExportOptions export_options;
      export_options.size = plot::FigureSize{3.3, 3.2};  // a column: three side by side
      plot::export_figure(heatmaps[i], (std::filesystem::path(out_dir) / file).string(),
                          export_options);
      files.push_back(file);
    }
    return files;
  };
#else
  (void)store;
  (void)out_dir;
  return {};
#endif
}

}  // namespace fathom::cli
