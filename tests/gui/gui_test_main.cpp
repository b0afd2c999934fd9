// main() of gui_tests: `gui_tests Class [Qt Test options]` runs one registered test class as
// QTEST_MAIN would (a QApplication at 96 dpi, then QTest::qExec); `gui_tests --list` names them.
#include <QApplication>
#include <QTest>
#include <cstdio>
#include <map>
#include <vector>

#include "tests/gui/gui_test_registry.h"

namespace fathom::gui_test {
namespace {

// A function-local map: registrations run during static initialization, in any file order.
std::map<std::string, TestFactory>& test_classes() {
  static std::map<std::string, TestFactory> classes;
  return classes;
}

}  // namespace

bool add_test_class(const std::string& name, TestFactory make) {
  test_classes().emplace(name, std::move(make));
  return true;
}

}  // namespace fathom::gui_test

int main(int argc, char** argv) {
  const auto& classes = fathom::gui_test::test_classes();
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "--list" || first.empty() || !classes.count(first)) {
    if (!first.empty() && first != "--list")
      std::fprintf(stderr, "gui_tests: no test class %s; the classes are:\n", first.c_str());
    for (const auto& [name, make] : classes) std::printf("%s\n", name.c_str());
    return first == "--list" ? 0 : 2;
  }
  // Qt Test sees the program name and the options after the class name.
  std::vector<char*> qtest_args{argv[0]};
  for (int i = 2; i < argc; ++i) qtest_args.push_back(argv[i]);
  int qtest_argc = static_cast<int>(qtest_args.size());
  QApplication app(qtest_argc, qtest_args.data());
  app.setAttribute(Qt::AA_Use96Dpi, true);
  const std::unique_ptr<QObject> test = classes.at(first)();
  return QTest::qExec(test.get(), qtest_argc, qtest_args.data());
}
