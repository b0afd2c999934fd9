#include "plot/figure.h"

#include <cmath>
#include <fstream>
#include <limits>

#include "base/util/error.h"

namespace fathom::plot {
namespace {

using json = nlohmann::json;

// ---- writing ----

json numbers(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(std::isnan(x) ? json(nullptr) : json(x));
  return out;
}

json axis_json(const Axis& a) {
  json out = {{"label", a.label}, {"scale", a.scale == Scale::Log ? "log" : "linear"}};
  if (a.min) out["min"] = *a.min;
  if (a.max) out["max"] = *a.max;
  if (a.whole_numbers) out["whole_numbers"] = true;
  return out;
}

json to_json_of(const Heatmap& h) {
  json values = json::array();
  for (const auto& row : h.values) values.push_back(numbers(row));
  json out = {{"kind", "heatmap"},
              {"title", h.title},
              {"row_labels", h.row_labels},
              {"col_labels", h.col_labels},
              {"values", values},
              {"lower_triangle", h.lower_triangle},
              {"colour_title", h.colour_title},
              {"x_label", h.x_label},
              {"y_label", h.y_label},
              {"annotate", h.annotate},
              {"log_colour", h.log_colour},
              {"label_every_cell", h.label_every_cell}};
  if (h.vmin) out["vmin"] = *h.vmin;
  if (h.vmax) out["vmax"] = *h.vmax;
  return out;
}

json to_json_of(const LineFigure& f) {
  json series = json::array();
  for (const auto& s : f.series) {
    json one = {{"name", s.name}, {"x", numbers(s.x)}, {"y", numbers(s.y)}};
    if (!s.fit_of.empty()) one["fit_of"] = s.fit_of;
    if (!s.err.empty()) one["err"] = numbers(s.err);
    series.push_back(one);
  }
  json out = {{"kind", "line"},
              {"title", f.title},
              {"x", axis_json(f.x)},
              {"y", axis_json(f.y)},
              {"series", series}};
  if (!f.markers) out["markers"] = false;  // absent: the default, a marker on every point
  return out;
}

json to_json_of(const BarFigure& f) {
  json series = json::array();
  for (const auto& s : f.series) {
    json one = {{"name", s.name}, {"values", numbers(s.values)}};
    if (!s.errors.empty()) one["errors"] = numbers(s.errors);  // NaN: no whisker on that bar
    series.push_back(std::move(one));
  }
  json out = {{"kind", "bar"},    {"title", f.title},     {"groups", f.groups},
              {"series", series}, {"x_label", f.x_label}, {"y", axis_json(f.y)}};
  if (!f.errors_are.empty()) out["errors_are"] = f.errors_are;
  if (!f.references.empty()) {
    out["references"] = json::array();
    for (const auto& ref : f.references)
      out["references"].push_back({{"value", ref.value}, {"label", ref.label}});
  }
  return out;
}

json to_json_of(const CurveFigure& f) {
  json curves = json::array();
  for (const auto& c : f.curves) {
    json one = {{"label", c.label},
                {"metric", c.metric},
                {"step", numbers(c.step)},
                {"value", numbers(c.value)},
                {"colour_key", c.colour_key}};
    if (c.diverged_step) one["diverged_step"] = *c.diverged_step;
    if (c.fork_step) one["fork_step"] = *c.fork_step;
    if (c.style >= 0) one["style"] = c.style;
    if (!c.milestone_x.empty()) one["milestone_x"] = numbers(c.milestone_x);
    if (c.read_x && c.read_y) one["read"] = {{"x", *c.read_x}, {"y", *c.read_y}};
    if (!c.spike_x.empty()) {
      one["spike_x"] = numbers(c.spike_x);
      one["spike_y"] = numbers(c.spike_y);
    }
    if (!c.members.empty()) {
      json ends = json::array();
      for (const auto& e : c.ends) ends.push_back({{"x", e.x}, {"y", e.y}, {"member", e.member}});
      one["members"] = c.members;
      one["count"] = c.count;
      one["ends"] = ends;
      one["stopped_early"] = c.stopped_early;
      if (!c.band_lo.empty()) {
        one["band_lo"] = numbers(c.band_lo);
        one["band_hi"] = numbers(c.band_hi);
      }
    }
    curves.push_back(one);
  }
  json out = {{"kind", "curves"},    {"title", f.title},    {"smoothing", f.smoothing},
              {"x", axis_json(f.x)}, {"y", axis_json(f.y)}, {"curves", curves},
              {"x_kind", f.x_kind}};
  if (!f.band.empty()) out["band"] = f.band;
  if (!f.spikes_are.empty()) out["spikes_are"] = f.spikes_are;
  if (f.budget) out["budget"] = {{"x", f.budget->x}, {"label", f.budget->label}};
  return out;
}

// ---- reading: every accessor names the field it failed on ----

struct Reader {
  const std::string& source;

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(source, 0, field, message);
  }
  const json* find(const json& obj, const std::string& key) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  std::string str(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (!v) return "";
    if (!v->is_string()) fail(path + key, "expected a string");
    return v->get<std::string>();
  }
  bool boolean(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (!v) return false;
    if (!v->is_boolean()) fail(path + key, "expected true or false");
    return v->get<bool>();
  }
  std::optional<double> opt_number(const json& obj, const std::string& key,
                                   const std::string& path) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(path + key, "expected a number");
    return v->get<double>();
  }
  double number(const json& obj, const std::string& key, const std::string& path) const {
    const auto v = opt_number(obj, key, path);
    if (!v) fail(path + key, "missing (a number is required)");
    return *v;
  }
  std::vector<double> numbers(const json& obj, const std::string& key,
                              const std::string& path) const {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_array()) fail(path + key, "expected an array of numbers");
    std::vector<double> out;
    for (const auto& x : *v) {
      if (x.is_null())
        out.push_back(kNaN);
      else if (x.is_number())
        out.push_back(x.get<double>());
      else
        fail(path + key, "expected numbers (or null for a missing value)");
    }
    return out;
  }
  std::vector<std::string> strings(const json& obj, const std::string& key,
                                   const std::string& path) const {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_array()) fail(path + key, "expected an array of strings");
    std::vector<std::string> out;
    for (const auto& x : *v) {
      if (!x.is_string()) fail(path + key, "expected strings");
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  const json& array(const json& obj, const std::string& key, const std::string& path) const {
    static const json empty = json::array();
    const json* v = find(obj, key);
    if (!v) return empty;
    if (!v->is_array()) fail(path + key, "expected an array");
    return *v;
  }
  Axis axis(const json& obj, const std::string& key, Axis fallback = {}) const {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_object()) fail(key, "expected an object {label, scale, min, max}");
    Axis a;
    a.label = str(*v, "label", key + ".");
    const std::string scale = str(*v, "scale", key + ".");
    if (scale == "log")
      a.scale = Scale::Log;
    else if (scale.empty() || scale == "linear")
      a.scale = Scale::Linear;
    else
      fail(key + ".scale", "expected \"linear\" or \"log\", got \"" + scale + "\"");
    a.min = opt_number(*v, "min", key + ".");
    a.max = opt_number(*v, "max", key + ".");
    a.whole_numbers = boolean(*v, "whole_numbers", key + ".");
    return a;
  }
};

Heatmap heatmap_from(const Reader& r, const json& j) {
  Heatmap h;
  h.title = r.str(j, "title", "");
  h.row_labels = r.strings(j, "row_labels", "");
  h.col_labels = r.strings(j, "col_labels", "");
  const json& rows = r.array(j, "values", "");
  for (size_t i = 0; i < rows.size(); ++i) {
    json wrapper = {{"row", rows[i]}};
    h.values.push_back(r.numbers(wrapper, "row", "values[" + std::to_string(i) + "]"));
  }
  h.lower_triangle = r.boolean(j, "lower_triangle", "");
  h.colour_title = r.str(j, "colour_title", "");
  h.vmin = r.opt_number(j, "vmin", "");
  h.vmax = r.opt_number(j, "vmax", "");
  h.x_label = r.str(j, "x_label", "");
  h.y_label = r.str(j, "y_label", "");
  h.annotate = r.boolean(j, "annotate", "");
  h.log_colour = r.boolean(j, "log_colour", "");
  h.label_every_cell = r.boolean(j, "label_every_cell", "");
  for (size_t i = 0; i < h.values.size(); ++i)
    if (h.values[i].size() != h.values[0].size())
      r.fail("values[" + std::to_string(i) + "]", "rows differ in length");
  if (!h.row_labels.empty() && h.row_labels.size() != h.values.size())
    r.fail("row_labels", "expected one label per row of values");
  if (!h.col_labels.empty() && !h.values.empty() && h.col_labels.size() != h.values[0].size())
    r.fail("col_labels", "expected one label per column of values");
  return h;
}

LineFigure line_from(const Reader& r, const json& j) {
  LineFigure f;
  f.title = r.str(j, "title", "");
  f.x = r.axis(j, "x");
  f.y = r.axis(j, "y");
  f.markers = !r.find(j, "markers") || r.boolean(j, "markers", "");
  const json& series = r.array(j, "series", "");
  for (size_t i = 0; i < series.size(); ++i) {
    const std::string path = "series[" + std::to_string(i) + "].";
    LineSeries s;
    s.name = r.str(series[i], "name", path);
    s.x = r.numbers(series[i], "x", path);
    s.y = r.numbers(series[i], "y", path);
    s.fit_of = r.str(series[i], "fit_of", path);
    s.err = r.numbers(series[i], "err", path);
    if (s.x.size() != s.y.size()) r.fail(path + "y", "x and y differ in length");
    if (!s.err.empty() && s.err.size() != s.y.size())
      r.fail(path + "err", "expected one error (or null) per point");
    f.series.push_back(std::move(s));
  }
  return f;
}

BarFigure bar_from(const Reader& r, const json& j) {
  BarFigure f;
  f.title = r.str(j, "title", "");
  f.groups = r.strings(j, "groups", "");
  f.x_label = r.str(j, "x_label", "");
  f.y = r.axis(j, "y");
  const json& series = r.array(j, "series", "");
  for (size_t i = 0; i < series.size(); ++i) {
    const std::string path = "series[" + std::to_string(i) + "].";
    BarSeries s{r.str(series[i], "name", path), r.numbers(series[i], "values", path)};
    if (s.values.size() != f.groups.size())
      r.fail(path + "values",
             "expected one value per group (" + std::to_string(f.groups.size()) + ")");
    if (series[i].contains("errors")) {
      s.errors = r.numbers(series[i], "errors", path);
      if (s.errors.size() != s.values.size())
        r.fail(path + "errors", "expected one error per value (" + std::to_string(s.values.size()) +
                                    "; null for none)");
    }
    f.series.push_back(std::move(s));
  }
  f.errors_are = r.str(j, "errors_are", "");
  if (j.contains("references")) {
    const json& refs = r.array(j, "references", "");
    for (size_t i = 0; i < refs.size(); ++i) {
      const std::string path = "references[" + std::to_string(i) + "].";
      const auto value = r.opt_number(refs[i], "value", path);
      if (!value) r.fail(path + "value", "expected a number");
      f.references.push_back({*value, r.str(refs[i], "label", path)});
    }
  }
  return f;
}

CurveFigure curves_from(const Reader& r, const json& j) {
  CurveFigure f;
  f.title = r.str(j, "title", "");
  f.smoothing = r.opt_number(j, "smoothing", "").value_or(0.0);
  if (f.smoothing < 0 || f.smoothing >= 1) r.fail("smoothing", "expected a weight in [0, 1)");
  f.x = r.axis(j, "x", CurveFigure{}.x);
  f.y = r.axis(j, "y");
  f.x_kind = r.str(j, "x_kind", "");
  if (f.x_kind.empty()) f.x_kind = "update";
  if (f.x_kind != "update" && f.x_kind != "tokens" && f.x_kind != "time" && f.x_kind != "compute")
    r.fail("x_kind",
           "expected \"update\", \"tokens\", \"compute\" or \"time\", got \"" + f.x_kind + "\"");
  f.band = r.str(j, "band", "");
  f.spikes_are = r.str(j, "spikes_are", "");
  if (const json* budget = r.find(j, "budget")) {
    if (!budget->is_object()) r.fail("budget", "expected an object {x, label}");
    f.budget = BudgetLine{r.number(*budget, "x", "budget."), r.str(*budget, "label", "budget.")};
  }
  const json& curves = r.array(j, "curves", "");
  for (size_t i = 0; i < curves.size(); ++i) {
    const std::string path = "curves[" + std::to_string(i) + "].";
    Curve c;
    c.label = r.str(curves[i], "label", path);
    c.metric = r.str(curves[i], "metric", path);
    c.step = r.numbers(curves[i], "step", path);
    c.value = r.numbers(curves[i], "value", path);
    c.diverged_step = r.opt_number(curves[i], "diverged_step", path);
    c.fork_step = r.opt_number(curves[i], "fork_step", path);
    c.colour_key = r.str(curves[i], "colour_key", path);
    if (const auto style = r.opt_number(curves[i], "style", path)) {
      if (*style < 0 || *style != std::floor(*style) || *style > 1e9)
        r.fail(path + "style", "expected a whole number >= 0");
      c.style = static_cast<int>(*style);
    }
    if (c.step.size() != c.value.size()) r.fail(path + "value", "step and value differ in length");
    if (curves[i].contains("milestone_x"))
      c.milestone_x = r.numbers(curves[i], "milestone_x", path);
    if (const json* read = r.find(curves[i], "read")) {
      if (!read->is_object()) r.fail(path + "read", "expected an object {x, y}");
      c.read_x = r.number(*read, "x", path + "read.");
      c.read_y = r.number(*read, "y", path + "read.");
    }
    if (curves[i].contains("spike_x")) {
      c.spike_x = r.numbers(curves[i], "spike_x", path);
      c.spike_y = r.numbers(curves[i], "spike_y", path);
      if (c.spike_x.size() != c.spike_y.size())
        r.fail(path + "spike_y", "spike_x and spike_y differ in length");
    }
    if (curves[i].contains("members")) {
      c.members = r.strings(curves[i], "members", path);
      c.stopped_early = r.boolean(curves[i], "stopped_early", path);
      c.band_lo = r.numbers(curves[i], "band_lo", path);
      c.band_hi = r.numbers(curves[i], "band_hi", path);
      for (double n : r.numbers(curves[i], "count", path)) c.count.push_back(static_cast<int>(n));
      if (!c.band_lo.empty() &&
          (c.band_lo.size() != c.step.size() || c.band_hi.size() != c.step.size()))
        r.fail(path + "band_lo", "band_lo and band_hi need one value per step");
      if (!c.count.empty() && c.count.size() != c.step.size())
        r.fail(path + "count", "expected one count per step");
      const json& ends = r.array(curves[i], "ends", path);
      for (size_t e = 0; e < ends.size(); ++e) {
        const std::string at = path + "ends[" + std::to_string(e) + "].";
        c.ends.push_back(
            {r.number(ends[e], "x", at), r.number(ends[e], "y", at), r.str(ends[e], "member", at)});
      }
    }
    f.curves.push_back(std::move(c));
  }
  return f;
}

}  // namespace

std::string kind_name(const Figure& figure) {
  static const char* names[] = {"heatmap", "line", "bar", "curves"};
  return names[figure.index()];
}

nlohmann::json to_json(const Figure& figure) {
  return std::visit([](const auto& f) { return to_json_of(f); }, figure);
}

Figure figure_from_json(const nlohmann::json& j, const std::string& source) {
  Reader r{source};
  if (!j.is_object()) r.fail("", "a figure is a JSON object with a \"kind\" field");
  const std::string kind = r.str(j, "kind", "");
  if (kind == "heatmap") return heatmap_from(r, j);
  if (kind == "line") return line_from(r, j);
  if (kind == "bar") return bar_from(r, j);
  if (kind == "curves") return curves_from(r, j);
  r.fail("kind", "expected \"heatmap\", \"line\", \"bar\" or \"curves\", got \"" + kind + "\"");
}

Figure load_figure(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open the figure file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, "", std::string("not valid JSON: ") + e.what());
  }
  return figure_from_json(j, path);
}

}  // namespace fathom::plot
