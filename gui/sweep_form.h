#pragma once
// The sweep editor's form as plain data, and its two-way mapping to sweep YAML (docs/sweeps.md).
// The form edits name, base path, grid axes, one zip group, seeds and set:; anything else in
// the file (several zip groups, exclude rules, an inline base) is kept verbatim so editing the
// form never loses it.
// Every field remembers the lines it came from, so an error at a line finds its field.
#include <string>
#include <vector>

namespace fathom::gui {

struct SweepFormEntry {
  std::string key;    // dotted config key
  std::string value;  // grid: the list's items as flow YAML without brackets ("post, pre");
                      // set: one YAML value
  int line = 0, end_line = 0;  // 1-based lines in the YAML it was read from; 0: not read
};

struct SweepForm {
  std::string name, base, seeds;  // seeds: the list's items, like a grid value
  int name_line = 0, base_line = 0, seeds_line = 0;
  std::vector<SweepFormEntry> grid, zip, set;  // zip: the keys of one group, varied together
  std::string extra_yaml;  // top-level entries the form does not edit, as block YAML
  // The file has `fork:` (a fork sweep, kept in extra_yaml): no `base:` is written for it.
  bool forks = false;
};

// Parses YAML into the form. Shape problems (a non-mapping grid, ...) are left for the sweep
// checks to report; only a YAML syntax error fails: false, with *error and *error_line set.
bool sweep_form_from_yaml(const std::string& yaml, SweepForm* form, std::string* error,
                          int* error_line);

// The sweep YAML for a form: name, base, grid, zip, seeds, set, then the kept extra entries.
std::string sweep_form_to_yaml(const SweepForm& form);

}  // namespace fathom::gui
