#include "plot/probe_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>

#include "base/util/error.h"

namespace fathom::plot {
namespace {

// "enc.3.self_attn.h5" -> ("enc.3.self_attn", true); "enc.3.ffn" -> ("enc.3.ffn", false).
std::pair<std::string, bool> without_head(const std::string& position) {
  static const std::regex head(R"(^(.*)\.h[0-9]+$)");
  std::smatch m;
  if (std::regex_match(position, m, head)) return {m[1].str(), true};
  return {position, false};
}

const char* reduction_name(HeadReduction heads) {
  return heads == HeadReduction::Max ? "max over heads" : "mean over heads";
}

bool has_heads(const db::ProbeSeries& series) {
  return !series.positions.empty() && without_head(series.positions.front()).second;
}

}  // namespace

std::string probe_run_label(const db::RunRecord& run) {
  std::string name = run.name;
  if (!run.sweep.empty() && name.rfind(run.sweep + "/", 0) == 0)
    name = name.substr(run.sweep.size() + 1);
  return "#" + std::to_string(run.id) + " " + name;
}

HeadReduction parse_head_reduction(const std::string& text) {
  if (text == "all") return HeadReduction::All;
  if (text == "max") return HeadReduction::Max;
  if (text == "mean") return HeadReduction::Mean;
  throw InputError("", 0, "--heads", "expected all, max or mean, got \"" + text + "\"");
}

db::ProbeSeries reduce_heads(const db::ProbeSeries& series, HeadReduction heads) {
  if (heads == HeadReduction::All || !has_heads(series)) return series;
  db::ProbeSeries out;
  out.steps = series.steps;
  std::vector<size_t> group_of;  // position -> row of `out`
  for (const auto& position : series.positions) {
    const std::string sublayer = without_head(position).first;
    if (out.positions.empty() || out.positions.back() != sublayer)
      out.positions.push_back(sublayer);
    group_of.push_back(out.positions.size() - 1);
  }
  for (const auto& values : series.values) {
    std::vector<float> row(out.positions.size(), heads == HeadReduction::Max
                                                     ? -std::numeric_limits<float>::infinity()
                                                     : 0);
    std::vector<int> count(out.positions.size(), 0);
    for (size_t i = 0; i < values.size() && i < group_of.size(); ++i) {
      float& cell = row[group_of[i]];
      cell = heads == HeadReduction::Max ? std::max(cell, values[i]) : cell + values[i];
      // NaN (a diverged update) stays NaN in either reduction.
      if (std::isnan(values[i])) cell = values[i];
      ++count[group_of[i]];
    }
    if (heads == HeadReduction::Mean)
      for (size_t g = 0; g < row.size(); ++g) row[g] /= static_cast<float>(std::max(count[g], 1));
    out.values.push_back(std::move(row));
  }
  return out;
}

std::vector<Heatmap> probe_heatmaps(
    const std::vector<std::pair<std::string, db::ProbeSeries>>& runs, const std::string& probe,
    HeadReduction heads) {
  std::vector<db::ProbeSeries> reduced;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  bool all_positive = true;
  for (const auto& [label, series] : runs) {
    reduced.push_back(reduce_heads(series, heads));
    for (const auto& row : reduced.back().values)
      for (float v : row)
        if (std::isfinite(v)) {
          lo = std::min(lo, static_cast<double>(v));
          hi = std::max(hi, static_cast<double>(v));
          all_positive = all_positive && v > 0;
        }
  }
  const bool log = std::isfinite(lo) && all_positive && hi / lo >= 100;
  std::vector<Heatmap> out;
  for (size_t r = 0; r < runs.size(); ++r) {
    const db::ProbeSeries& s = reduced[r];
    Heatmap h;
    h.title = runs[r].first;
    h.row_labels = s.positions;
    for (int64_t step : s.steps) h.col_labels.push_back(std::to_string(step));
    // values[row = position][col = point]
    h.values.assign(s.positions.size(), std::vector<double>(s.steps.size(), kNaN));
    for (size_t c = 0; c < s.values.size(); ++c)
      for (size_t p = 0; p < s.positions.size() && p < s.values[c].size(); ++p)
        h.values[p][c] = s.values[c][p];
    h.colour_title = probe;
    if (has_heads(runs[r].second) && heads != HeadReduction::All)
      h.colour_title += std::string(" (") + reduction_name(heads) + ")";
    h.x_label = "update";
    h.y_label = "sub-layer";
    h.log_colour = log;
    if (std::isfinite(lo)) h.vmin = lo, h.vmax = hi;
    out.push_back(std::move(h));
  }
  return out;
}

LineFigure probe_lines(const db::ProbeSeries& series, const std::string& probe,
                       const std::string& label, HeadReduction heads) {
  const db::ProbeSeries s = reduce_heads(series, heads);
  LineFigure f;
  f.title = label;
  f.x = Axis{"update", Scale::Linear, std::nullopt, std::nullopt, true};
  f.y = Axis{probe, Scale::Linear, std::nullopt, std::nullopt};
  bool all_positive = true;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t p = 0; p < s.positions.size(); ++p) {
    LineSeries line;
    line.name = s.positions[p];
    for (size_t i = 0; i < s.steps.size(); ++i) {
      const double v = p < s.values[i].size() ? s.values[i][p] : kNaN;
      line.x.push_back(static_cast<double>(s.steps[i]));
      line.y.push_back(v);
      if (std::isfinite(v)) {
        all_positive = all_positive && v > 0;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    f.series.push_back(std::move(line));
  }
  if (std::isfinite(lo) && all_positive && hi / lo >= 100) f.y.scale = Scale::Log;
  return f;
}

}  // namespace fathom::plot
