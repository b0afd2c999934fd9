#pragma once
// Reading an analysis result's JSON for a figure or a table: each field looked up with an
// InputError naming the result's source and the field's path when it is missing or of the
// wrong type; null numbers read as NaN (an infinite or undefined value the analysis wrote as
// null). Header-only; shared by the analyses' figure builders.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "plot/figure.h"

namespace fathom::plot {

// Reads result[path...] with errors that name the field.
struct Fields {
  using json = nlohmann::json;
  const std::string& source;
  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(source, 0, field, message);
  }
  const json& at(const json& j, const std::string& key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) fail(path + key, "missing");
    return j[key];
  }
  std::vector<double> numbers(const json& j, const std::string& field) const {
    if (!j.is_array()) fail(field, "expected an array of numbers");
    std::vector<double> out;
    for (const auto& x : j) {
      if (x.is_null())
        out.push_back(kNaN);
      else if (x.is_number())
        out.push_back(x.get<double>());
      else
        fail(field, "expected numbers");
    }
    return out;
  }
  std::vector<std::string> strings(const json& j, const std::string& field) const {
    if (!j.is_array()) fail(field, "expected an array of strings");
    std::vector<std::string> out;
    for (const auto& x : j) {
      if (!x.is_string()) fail(field, "expected strings");
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  std::string text(const json& j, const std::string& key, const std::string& path) const {
    const json& v = at(j, key, path);
    if (!v.is_string()) fail(path + key, "expected a string");
    return v.get<std::string>();
  }
  double number(const json& j, const std::string& key, const std::string& path) const {
    const json& v = at(j, key, path);
    if (v.is_null()) return kNaN;
    if (!v.is_number()) fail(path + key, "expected a number");
    return v.get<double>();
  }
};

}  // namespace fathom::plot
