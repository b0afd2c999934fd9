// fathom::SharedText: a run's config shared by its records' copies -- reads as the string it
// was made from, copies share one text, and nothing a copy does changes another.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/shared_text.h"

using fathom::SharedText;

namespace test_shared_text {

// Takes a string as the many functions that read a config do.
size_t length_of(const std::string& s) { return s.size(); }

TEST(SharedText, ReadsAsTheStringItWasMadeFrom) {
  const std::string json = R"({"model":{"norm":"pre"},"train":{"lr":0.001}})";
  const SharedText text = json;
  EXPECT_EQ(text.str(), json);
  EXPECT_EQ(length_of(text), json.size());
  EXPECT_EQ(text.size(), json.size());
  EXPECT_EQ(text.find("\"lr\""), json.find("\"lr\""));
  EXPECT_EQ(text.back(), '}');
  EXPECT_STREQ(text.c_str(), json.c_str());
  EXPECT_EQ(nlohmann::json::parse(text)["model"]["norm"], "pre");
  std::ostringstream out;
  out << text;
  EXPECT_EQ(out.str(), json);
  EXPECT_TRUE(text == json);
  EXPECT_TRUE(json == text);
  EXPECT_TRUE(text != std::string("{}"));
  EXPECT_TRUE(text != "{}");
}

TEST(SharedText, EmptyIsTheEmptyString) {
  const SharedText none, made_empty = std::string();
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(made_empty.empty());
  EXPECT_EQ(none.str(), "");
  EXPECT_EQ(none.size(), 0U);
  EXPECT_STREQ(none.c_str(), "");
  EXPECT_EQ(none, made_empty);
  EXPECT_NE(none, SharedText("x"));
}

TEST(SharedText, CopiesShareOneTextAndAssignmentReplacesOnlyItsOwn) {
  SharedText a = std::string(4500, 'c');
  SharedText b = a;
  EXPECT_TRUE(b.shares(a));
  EXPECT_EQ(&b.str(), &a.str());  // one text, not two
  b = "train: {}";
  EXPECT_FALSE(b.shares(a));
  EXPECT_EQ(a.str(), std::string(4500, 'c'));
  EXPECT_EQ(b, "train: {}");
  const SharedText c = std::string(4500, 'c');
  EXPECT_FALSE(c.shares(a));  // equal texts made apart are equal, not shared
  EXPECT_EQ(c, a);
}

// Copies made and dropped on several threads at once (a view's worker and the UI thread): the
// text outlives every copy but the last, and reads the same throughout.
TEST(SharedText, CopiesOnSeveralThreadsReadTheSameText) {
  const std::string expected(10000, 'y');
  auto original = std::make_unique<SharedText>(expected);
  std::vector<std::thread> threads;
  std::vector<size_t> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        const SharedText copy = *original;
        if (copy.size() != expected.size() || copy.back() != 'y') ++mismatches[t];
      }
    });
  for (auto& thread : threads) thread.join();
  const SharedText kept = *original;
  original.reset();
  EXPECT_EQ(kept, expected);
  EXPECT_EQ(mismatches, std::vector<size_t>(4, 0));
}

}  // namespace test_shared_text
