#include "gui/comparison_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace fathom::gui {
namespace {

// Axis values in first-seen order, or by value when all are numbers (2 < 6 < 18).
std::vector<std::string> ordered(std::vector<std::string> values) {
  auto number = [](const std::string& s, double* v) {
    char* end = nullptr;
    *v = std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0';
  };
  double a = 0, b = 0;
  const bool numeric = std::all_of(values.begin(), values.end(), [&](const auto& s) { return number(s, &a); });
  if (numeric)
    std::stable_sort(values.begin(), values.end(), [&](const auto& x, const auto& y) {
      number(x, &a);
      number(y, &b);
      return a < b;
    });
  return values;
}

void add_unique(std::vector<std::string>& list, const std::string& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

}  // namespace

ComparisonTable compare_runs(const std::vector<db::RunRecord>& runs,
                             const std::map<int64_t, std::map<std::string, std::string>>& tags,
                             const std::string& row_key, const std::string& col_key,
                             const std::string& metric) {
  auto tag = [&](int64_t run, const std::string& key, std::string* value) {
    if (key.empty()) return *value = "", true;
    auto t = tags.find(run);
    if (t == tags.end()) return false;
    auto v = t->second.find(key);
    if (v == t->second.end()) return false;
    *value = v->second;
    return true;
  };
  ComparisonTable table;
  struct Member { size_t run; std::string row, col; };
  std::vector<Member> members;
  for (size_t i = 0; i < runs.size(); ++i) {
    Member m{i, {}, {}};
    if (!tag(runs[i].id, row_key, &m.row) || !tag(runs[i].id, col_key, &m.col)) continue;
    add_unique(table.rows, m.row);
    add_unique(table.cols, m.col);
    members.push_back(m);
  }
  table.rows = ordered(table.rows);
  table.cols = ordered(table.cols);
  table.cells.assign(table.rows.size(), std::vector<ComparisonCell>(table.cols.size()));
  std::vector<std::vector<std::vector<double>>> values(
      table.rows.size(), std::vector<std::vector<double>>(table.cols.size()));
  for (const auto& m : members) {
    const size_t r = std::find(table.rows.begin(), table.rows.end(), m.row) - table.rows.begin();
    const size_t c = std::find(table.cols.begin(), table.cols.end(), m.col) - table.cols.begin();
    const auto& run = runs[m.run];
    auto v = run.final_metrics.find(metric);
    if (run.status == "diverged") ++table.cells[r][c].diverged;
    else if (v == run.final_metrics.end() || !std::isfinite(v->second)) ++table.cells[r][c].missing;
    else values[r][c].push_back(v->second);
  }
  for (size_t r = 0; r < table.rows.size(); ++r) {
    for (size_t c = 0; c < table.cols.size(); ++c) {
      auto& cell = table.cells[r][c];
      const auto& v = values[r][c];
      cell.runs = static_cast<int>(v.size());
      if (v.empty()) continue;
      double sum = 0, sq = 0;
      for (double x : v) sum += x;
      cell.mean = sum / v.size();
      for (double x : v) sq += (x - cell.mean) * (x - cell.mean);
      cell.std = v.size() > 1 ? std::sqrt(sq / (v.size() - 1)) : 0;  // sample std over seeds
    }
  }
  return table;
}

}  // namespace fathom::gui
