#include "experiments/importance_grid.h"

#include <algorithm>
#include <cmath>

namespace fathom::experiments {
namespace {

// A group's value in a run: its keys' values joined as the tables join a zip group.
std::string group_value(const TableRun& r, const std::vector<std::string>& group) {
  std::string v;
  for (size_t i = 0; i < group.size(); ++i) {
    const auto it = r.axes.find(group[i]);
    v += (i ? " / " : "") + (it == r.axes.end() ? std::string() : it->second);
  }
  return v;
}

// Marginal means over the cells that share the given axes' levels.
CellMeans marginal_means(const CellMeans& mean, const std::vector<size_t>& on) {
  std::map<std::vector<int>, std::pair<double, int>> acc;
  for (const auto& [c, m] : mean) {
    std::vector<int> key;
    for (size_t i : on) key.push_back(c[i]);
    acc[key].first += m;
    acc[key].second += 1;
  }
  CellMeans result;
  for (const auto& [key, a] : acc) result[key] = a.first / a.second;
  return result;
}

}  // namespace

Grid grid_of(const std::vector<TableRun>& runs, const std::string& seed_key,
             std::vector<std::vector<std::string>> groups) {
  Grid g;
  // Keys of no given group are axes of their own.
  for (const auto& r : runs)
    for (const auto& [key, value] : r.axes) {
      bool grouped = key == seed_key;
      for (const auto& group : groups)
        grouped = grouped || std::find(group.begin(), group.end(), key) != group.end();
      if (!grouped) groups.push_back({key});
    }
  std::vector<std::vector<std::string>> used;
  for (const auto& group : groups) {
    if (group.size() == 1 && group[0] == seed_key) continue;
    std::vector<std::string> seen;
    for (const auto& r : runs)
      if (const std::string v = group_value(r, group);
          std::find(seen.begin(), seen.end(), v) == seen.end())
        seen.push_back(v);
    if (seen.size() < 2) continue;  // one value: nothing to explain
    std::string name;
    for (size_t i = 0; i < group.size(); ++i) name += (i ? "+" : "") + group[i];
    g.axes.push_back(name);
    g.levels.push_back(seen);
    used.push_back(group);
  }
  for (const auto& r : runs) {
    std::vector<int> cell;
    for (size_t i = 0; i < used.size(); ++i) {
      const std::string v = group_value(r, used[i]);
      cell.push_back(static_cast<int>(std::find(g.levels[i].begin(), g.levels[i].end(), v) -
                                      g.levels[i].begin()));
    }
    auto& slot = g.values[cell];
    if (r.metric && std::isfinite(*r.metric)) slot.push_back(*r.metric);
  }
  return g;
}

std::string cell_text(const Grid& g, const std::vector<int>& cell) {
  std::string text;
  for (size_t i = 0; i < cell.size(); ++i)
    text += (i ? ", " : "") + g.axes[i] + "=" + g.levels[i][static_cast<size_t>(cell[i])];
  return text;
}

// Every cell of the full grid, in odometer order.
std::vector<std::vector<int>> all_cells(const Grid& g) {
  std::vector<std::vector<int>> cells{{}};
  for (const auto& levels : g.levels) {
    std::vector<std::vector<int>> next;
    for (const auto& c : cells)
      for (size_t v = 0; v < levels.size(); ++v) {
        auto d = c;
        d.push_back(static_cast<int>(v));
        next.push_back(d);
      }
    cells = next;
  }
  return cells;
}

Decomposition decompose(const Grid& g, const CellMeans& mean) {
  Decomposition d;
  double mu = 0;
  for (const auto& [c, m] : mean) mu += m;
  mu /= static_cast<double>(mean.size());
  for (const auto& [c, m] : mean) d.total_variance += (m - mu) * (m - mu);
  d.total_variance /= static_cast<double>(mean.size());
  std::vector<CellMeans> main(g.axes.size());
  for (size_t i = 0; i < g.axes.size(); ++i) {
    main[i] = marginal_means(mean, {i});
    double v = 0;
    for (auto& [key, m] : main[i]) {
      m -= mu;  // f_i(a)
      v += m * m;
    }
    d.terms.push_back({{g.axes[i]}, v / static_cast<double>(main[i].size()), 0});
  }
  std::vector<ImportanceTerm> pairs;
  for (size_t i = 0; i < g.axes.size(); ++i)
    for (size_t j = i + 1; j < g.axes.size(); ++j) {
      const auto both = marginal_means(mean, {i, j});
      double v = 0;
      for (const auto& [key, m] : both) {
        const double f = m - mu - main[i].at({key[0]}) - main[j].at({key[1]});
        v += f * f;
      }
      pairs.push_back({{g.axes[i], g.axes[j]}, v / static_cast<double>(both.size()), 0});
    }
  auto by_share = [](const ImportanceTerm& a, const ImportanceTerm& b) {
    return a.variance > b.variance;
  };
  std::stable_sort(d.terms.begin(), d.terms.end(), by_share);
  std::stable_sort(pairs.begin(), pairs.end(), by_share);
  d.terms.insert(d.terms.end(), pairs.begin(), pairs.end());
  double explained = 0;
  for (auto& t : d.terms) {
    t.share = d.total_variance > 0 ? t.variance / d.total_variance : 0;
    explained += t.share;
  }
  d.higher_order_share = d.total_variance > 0 ? std::max(0.0, 1 - explained) : 0;
  return d;
}

}  // namespace fathom::experiments
