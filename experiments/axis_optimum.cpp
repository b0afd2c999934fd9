#include "experiments/axis_optimum.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fathom::experiments {

bool AxisOptimum::inconclusive() const { return best.bracketed && best.interval_at_an_end; }

std::string AxisOptimum::text() const {
  const std::string head = line + ": ";
  if (points < 3)
    return head + "no optimum: " + std::to_string(points) + (points == 1 ? " point" : " points") +
           " with a value (3 needed)";
  if (!best.bracketed)
    return head + "best at the grid's end, " + axis + " " + three_digits(best.grid_x) +
           ": the optimum may lie beyond it (extend the grid to bracket it)";
  const std::string best_x = "best " + axis + " " + three_digits(best.x);
  if (std::isnan(best.ci_lo))
    return head + best_x + " (the grid's best " + three_digits(best.grid_x) +
           "; a value with one seed: no interval)";
  const std::string ci = "95 % CI " + three_digits(best.ci_lo) + "-" + three_digits(best.ci_hi);
  if (inconclusive())
    return head + best_x + ", " + ci + " reaches the grid's end: inconclusive whether the " +
           "optimum lies inside " + three_digits(grid_lo) + "-" + three_digits(grid_hi);
  return head + best_x + " (" + ci + "; the grid's best " + three_digits(best.grid_x) + ")";
}

AxisOptimum axis_optimum(const std::string& line, const std::string& axis,
                         const std::vector<double>& xs,
                         const std::vector<std::vector<double>>& values, bool higher_is_better) {
  AxisOptimum o;
  o.line = line;
  o.axis = axis;
  o.higher_is_better = higher_is_better;
  std::vector<double> kept_x;
  std::vector<std::vector<double>> kept;
  for (size_t i = 0; i < xs.size() && i < values.size(); ++i) {
    if (values[i].empty()) continue;
    kept_x.push_back(xs[i]);
    kept.push_back(values[i]);
    if (higher_is_better)
      for (double& v : kept.back()) v = -v;
  }
  o.points = static_cast<int>(kept_x.size());
  if (kept_x.empty()) return o;
  o.grid_lo = kept_x.front();
  o.grid_hi = kept_x.back();
  // No bootstrap draws: the interval is the slope test's; only a slope over several optima
  // (experiments/lr_transfer.h) reads draws.
  if (o.points >= 3) o.best = grid_optimum(kept_x, kept, 0, 0);
  return o;
}

ComparisonTable as_one_line(const ComparisonTable& t) {
  ComparisonTable line = t;
  line.row_key.clear();
  line.col_key = t.row_key;
  line.row_labels = {t.metric};
  line.col_labels = t.row_labels;
  line.cells.assign(1, {});
  for (const auto& row : t.cells) line.cells[0].push_back(row.front());
  return line;
}

ComparisonTable along_numeric_axis(const ComparisonTable& t) {
  if (t.col_labels.size() != 1 || !numeric_columns(t).empty()) return t;
  ComparisonTable line = as_one_line(t);
  return numeric_columns(line).empty() ? t : line;
}

std::string short_axis_key(const std::string& key) {
  const std::string first = key.substr(0, key.find('+'));
  return first.substr(first.rfind('.') + 1);
}

bool names_a_depth(const std::string& key) {
  return key.size() >= 6 && key.compare(key.size() - 6, 6, "layers") == 0;
}

std::optional<double> axis_number(const std::string& joined) {
  // A zip group's label "6 / 6" by its first key's value.
  const std::string label = joined.substr(0, joined.find(" / "));
  char* end = nullptr;
  const double v = std::strtod(label.c_str(), &end);
  if (label.empty() || *end != '\0' || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

std::vector<double> numeric_columns(const ComparisonTable& t) {
  std::vector<double> xs;
  for (const auto& label : t.col_labels) {
    const std::optional<double> v = axis_number(label);
    if (!v) return {};
    xs.push_back(*v);
  }
  return xs;
}

std::vector<size_t> columns_by_value(const std::vector<double>& labels) {
  std::vector<size_t> order(labels.size());
  for (size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return labels[a] < labels[b]; });
  return order;
}

std::vector<AxisOptimum> row_optima(const ComparisonTable& t, const std::string& axis,
                                    bool higher_is_better) {
  const std::vector<double> labels = numeric_columns(t);
  if (labels.empty()) return {};
  const std::vector<size_t> order = columns_by_value(labels);
  std::vector<double> xs;
  for (size_t c : order) xs.push_back(labels[c]);
  std::vector<AxisOptimum> out;
  for (size_t r = 0; r < t.row_labels.size(); ++r) {
    std::vector<std::vector<double>> values;
    for (size_t c : order) {
      const TableCell& cell = t.cells[r][c];
      values.push_back(cell.value ? cell.values : std::vector<double>{});
    }
    out.push_back(axis_optimum(t.row_labels[r], axis, xs, values, higher_is_better));
  }
  return out;
}

}  // namespace fathom::experiments
