#!/usr/bin/env bash
# The extension recipes of docs/architecture.md hold: every extension file's entry point is
# registered in its one registration file. A method, analysis, view, store backend or launcher
# whose file compiles but is never registered would otherwise be silently absent (the compiler
# and linker cannot tell). Lists what is missing and where it belongs.
# Usage: scripts/check/extensions.sh   (ctest runs it: extension_recipes)
set -euo pipefail
cd "$(dirname "$0")/../.."
missing=0

# PATTERN: an entry point's definition in FILES; REGISTRY: the file that must use each of them,
# as NAME followed by USE (a call "(registry)" where a declaration there would also name it).
require_registered() {
  local what="$1" pattern="$2" use="$3" registry="$4"
  shift 4
  local file name
  for file in "$@"; do
    [ "$file" = "$registry" ] && continue
    while read -r name; do
      [ -n "$name" ] || continue
      if ! grep -qF "$name$use" "$registry"; then
        echo "$what '$name' ($file) is not registered in $registry"
        missing=$((missing + 1))
      fi
    done < <(grep -oE "$pattern" "$file" | sed -E 's/^[^ ]+ //; s/\(.*//' || true)
  done
}

# A model method: `void register_<name>(MethodRegistry& ...)` in core/model/<name>.cpp.
require_registered "method" '^void register_[a-z_0-9]+\(MethodRegistry' "(registry)" \
  core/model/builtin_methods.cpp core/model/*.cpp
# An analysis: `void register_<name>(AnalysisRegistry& ...)` in analysis/<name>.cpp.
require_registered "analysis" '^void register_[a-z_0-9]+\(AnalysisRegistry' "(registry)" \
  analysis/builtin_analyses.cpp analysis/*.cpp
# A store backend: its factory `open_<name>_backend` in db/<name>_store.cpp.
require_registered "store backend" '^std::unique_ptr<StoreBackend> open_[a-z_0-9]+_backend\(' "" \
  db/store_backends.cpp db/*_store.cpp
# A launcher: `LauncherEntry <name>_launcher_entry()` in experiments/<name>_launcher.cpp.
require_registered "launcher" '^LauncherEntry [a-z_0-9]+_launcher_entry\(' "()" \
  experiments/launchers.cpp experiments/*_launcher.cpp
# A desktop view: a class deriving WorkbenchView, constructed in gui/views.cpp.
while read -r header; do
  while read -r class; do
    if ! grep -q "new $class\b" gui/views.cpp; then
      echo "view '$class' ($header) is not listed in gui/views.cpp"
      missing=$((missing + 1))
    fi
  done < <(grep -oE '^class [A-Za-z0-9_]+ : public QWidget, public WorkbenchView' "$header" |
           awk '{print $2}')
done < <(ls gui/*.h)

# A test file: its helpers and tests in a namespace named after the file (test files share
# unity translation units, tests/CMakeLists.txt), a desktop test class registered for gui_tests.
for file in tests/*/test_*.cpp; do
  stem="$(basename "$file" .cpp)"
  if ! grep -qE "^namespace ([a-z_:]+::)?$stem \{" "$file"; then
    echo "test file $file keeps its tests outside namespace $stem"
    missing=$((missing + 1))
  fi
done
for file in tests/gui/test_*.cpp; do
  if ! grep -qE '^FATHOM_GUI_TEST\([A-Za-z0-9_]+\);' "$file"; then
    echo "test file $file registers no class with FATHOM_GUI_TEST(Class);"
    missing=$((missing + 1))
  fi
done

if [ "$missing" -gt 0 ]; then
  echo "$missing extension(s) not registered (docs/architecture.md, \"Extension recipes\")"
  exit 1
fi
echo "every method, analysis, store backend, launcher, view and test file is registered"
