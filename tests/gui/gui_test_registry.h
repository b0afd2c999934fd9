#pragma once
// The desktop app's Qt Test classes share one program (gui_tests, gui_test_main.cpp): each test
// file registers its class with FATHOM_GUI_TEST(Class) where a program of its own would say
// QTEST_MAIN(Class), and ctest runs `gui_tests Class`, one process per class as before.
#include <QObject>
#include <functional>
#include <memory>
#include <string>

namespace fathom::gui_test {

using TestFactory = std::function<std::unique_ptr<QObject>()>;

// Returns true so that a registration can initialize a namespace-scope constant.
bool add_test_class(const std::string& name, TestFactory make);

}  // namespace fathom::gui_test

#define FATHOM_GUI_TEST(Class)                                            \
  [[maybe_unused]] static const bool fathom_gui_test_registered_##Class = \
      fathom::gui_test::add_test_class(#Class, [] { return std::make_unique<Class>(); })
