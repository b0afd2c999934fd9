#include "experiments/lr_grid_edges.h"

#include <cmath>
#include <cstdio>

namespace fathom::experiments {

double rate_beyond(const std::vector<double>& rates, bool above) {
  const double ratio = std::pow(rates.back() / rates.front(), 1.0 / (rates.size() - 1));
  return above ? rates.back() * ratio : rates.front() / ratio;
}

std::string rate_text(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", rate);
  return buf;
}

GridEdges grid_edges(const LrSensitivity& s) {
  GridEdges out;
  for (const auto& c : s.curves) {
    if (c.points.size() < 2) {
      out.notes.push_back(c.label + ": one rate with a value (" + rate_text(c.best_lr) +
                          "); no side to extend");
      continue;
    }
    if (!best_at_an_end(c)) {
      out.closed.push_back(c.label);
      continue;
    }
    OpenEdge e;
    e.label = c.label;
    e.setting = c.setting;
    e.best_lr = c.best_lr;
    e.above = c.best_lr == c.points.back().lr;
    std::vector<double> rates;
    for (const auto& p : c.points) rates.push_back(p.lr);
    e.next_text = rate_text(rate_beyond(rates, e.above));
    out.open.push_back(std::move(e));
  }
  return out;
}

}  // namespace fathom::experiments
