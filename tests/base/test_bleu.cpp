// Corpus BLEU must equal sacreBLEU 2.x defaults. sacreBLEU cannot run here, so expectations are
// worked out by hand from its documented algorithm; the arithmetic is in the comments.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_corpus.h"
#include "base/metrics/text_lines.h"
#include "base/util/error.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_bleu {

// ---- 13a tokenizer --------------------------------------------------------------------------

TEST(Tokenizer13a, PadsPunctuationAndSymbols) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("He said: \"No!\"..."), "He said : \" No ! \" . . .");
  EXPECT_EQ(tokenize_13a("don't {x} [y] a/b a_b ~ 50% #1 @me"),
            "don't { x } [ y ] a / b a _ b ~ 50 % # 1 @ me");
  EXPECT_EQ(tokenize_13a("A.B"), "A . B");
}

TEST(Tokenizer13a, PeriodsAndCommasInsideNumbersStay) {
  EXPECT_EQ(tokenize_13a("It costs $1,000.50."), "It costs $ 1,000.50 .");
  EXPECT_EQ(tokenize_13a("e.g. U.S.A. 3.14, pi"), "e . g . U . S . A . 3.14 , pi");
  // A period/comma not preceded by a digit is split off even when a digit follows.
  EXPECT_EQ(tokenize_13a(".5 and x,1 end."), ". 5 and x , 1 end .");
  EXPECT_EQ(tokenize_13a("7."), "7 .");
  EXPECT_EQ(tokenize_13a(",5"), ", 5");
}

TEST(Tokenizer13a, UnescapesEntitiesOnceInOrder) {
  EXPECT_EQ(tokenize_13a("&quot;Hi&quot; &amp; &lt;b&gt;"), "\" Hi \" & < b >");
  // &amp; is replaced after &quot;, so "&amp;quot;" becomes the text "&quot;", not '"'.
  EXPECT_EQ(tokenize_13a("&amp;quot;"), "& quot ;");
}

TEST(Tokenizer13a, SplitsDashOnlyAfterDigit) {
  EXPECT_EQ(tokenize_13a("1990-2000 well-known -5 5--6"), "1990 - 2000 well-known -5 5 - -6");
}

TEST(Tokenizer13a, DropsSkippedAndJoinsHyphenatedLineBreaks) {
  EXPECT_EQ(tokenize_13a("a<skipped>b"), "ab");
  EXPECT_EQ(tokenize_13a("pre-\nfix"), "prefix");
  EXPECT_EQ(tokenize_13a("two\nlines"), "two lines");
}

TEST(Tokenizer13a, WhitespaceFollowsPythonSplit) {
  EXPECT_EQ(tokenize_13a(""), "");
  EXPECT_EQ(tokenize_13a("  \t "), "");
  EXPECT_EQ(tokenize_13a("  a \t b\r\n"), "a b");
  // NBSP, THIN SPACE and 0x1C are whitespace to Python; ZERO WIDTH SPACE is not.
  EXPECT_EQ(tokenize_13a("a\u00a0b\u2009c\u200bd"), "a b c\u200bd");
  EXPECT_EQ(tokenize_13a("x\x1cy"), "x y");
  // Non-ASCII letters are never split; only the ASCII punctuation around them is.
  EXPECT_EQ(tokenize_13a("Zürich.Straße, 2.5€"), "Zürich . Straße , 2.5€");
}

// ---- statistics -------------------------------------------------------------------------------

TEST(BleuStats, CountsClippedNgrams) {
  // hyp "the the the the" vs ref "the cat the": unigram "the" 4 in hyp, clipped to 2 in ref.
  const BleuStats s = sentence_bleu_stats("the the the the", "the cat the");
  EXPECT_EQ(s.hyp_len, 4);
  EXPECT_EQ(s.ref_len, 3);
  EXPECT_EQ(s.matches, (std::array<int64_t, 4>{2, 0, 0, 0}));
  EXPECT_EQ(s.totals, (std::array<int64_t, 4>{4, 3, 2, 1}));
}

TEST(BleuStats, SegmentsAreRstrippedBeforeTokenizing) {
  // sacreBLEU rstrip()s first, so a trailing "-\n" is not a hyphenated line break: "a-" stays.
  EXPECT_EQ(tokenize_13a("a-\n"), "a");
  const BleuStats s = sentence_bleu_stats("a-", "a-\n");
  EXPECT_EQ(s.matches[0], 1);
  EXPECT_EQ(s.ref_len, 1);
}

TEST(BleuStats, AreAdditiveOverSentences) {
  const std::vector<std::string> hyps = {"the cat sat on the mat", "a b c d", "x"};
  const std::vector<std::string> refs = {"the cat is on the mat", "a b x y z", "x y"};
  BleuStats sum;
  for (std::size_t i = 0; i < hyps.size(); ++i) sum += sentence_bleu_stats(hyps[i], refs[i]);
  const BleuScore corpus = corpus_bleu(hyps, refs);
  EXPECT_EQ(corpus.stats, sum);
  EXPECT_EQ(corpus.score, bleu_from_stats(sum).score);
}

// ---- scores -----------------------------------------------------------------------------------

TEST(CorpusBleu, IdenticalSentencesScore100) {
  const BleuScore s = corpus_bleu({"The quick brown fox jumps.", "Over the lazy dog, again!"},
                                  {"The quick brown fox jumps.", "Over the lazy dog, again!"});
  EXPECT_NEAR(s.score, 100.0, 1e-9);
  EXPECT_EQ(s.bp, 1.0);
  EXPECT_EQ(s.hyp_len, s.ref_len);
}

TEST(CorpusBleu, HandComputedWithExpSmoothing) {
  // hyp "the cat sat on the mat", ref "the cat is on the mat" (6 tokens each, BP = 1):
  //   1-grams: the,the,cat,on,mat match -> 5/6 = 83.333%
  //   2-grams: "the cat","on the","the mat" -> 3/5 = 60%
  //   3-grams: "on the mat" -> 1/4 = 25%
  //   4-grams: 0/3 -> first zero order, k=1: 100 / (2^1 * 3) = 16.667%
  //   BLEU = (83.333 * 60 * 25 * 16.667)^(1/4) = 2083333.3^(1/4) = 37.99178
  const BleuScore s = corpus_bleu({"the cat sat on the mat"}, {"the cat is on the mat"});
  EXPECT_NEAR(s.precisions[0], 500.0 / 6, 1e-9);
  EXPECT_NEAR(s.precisions[1], 60.0, 1e-9);
  EXPECT_NEAR(s.precisions[2], 25.0, 1e-9);
  EXPECT_NEAR(s.precisions[3], 100.0 / 6, 1e-9);
  EXPECT_EQ(s.bp, 1.0);
  EXPECT_NEAR(s.score, std::pow(500.0 / 6 * 60 * 25 * 100.0 / 6, 0.25), 1e-9);
  EXPECT_NEAR(s.score, 37.99178428, 1e-6);
}

TEST(CorpusBleu, SuccessiveZeroOrdersDoubleTheSmoothing) {
  // hyp "the the the the", ref "the cat the": 1-grams 2/4 = 50%; then three zero-match orders:
  //   2-grams 0/3 -> 100/(2*3) = 16.667%, 3-grams 0/2 -> 100/(4*2) = 12.5%,
  //   4-grams 0/1 -> 100/(8*1) = 12.5%.  BP = 1 (4 >= 3).
  //   BLEU = (50 * 16.667 * 12.5 * 12.5)^(1/4) = 130208.33^(1/4) = 18.99589
  const BleuScore s = corpus_bleu({"the the the the"}, {"the cat the"});
  EXPECT_NEAR(s.precisions[1], 100.0 / 6, 1e-9);
  EXPECT_NEAR(s.precisions[2], 12.5, 1e-9);
  EXPECT_NEAR(s.precisions[3], 12.5, 1e-9);
  EXPECT_NEAR(s.score, 18.99589214, 1e-6);
}

TEST(CorpusBleu, BrevityPenaltyWhenHypothesisIsShorter) {
  // All n-grams of "the cat sat on" match: precisions 100%; BP = exp(1 - 6/4) = exp(-0.5).
  const BleuScore s = corpus_bleu({"the cat sat on"}, {"the cat sat on the mat"});
  EXPECT_NEAR(s.bp, std::exp(-0.5), 1e-12);
  EXPECT_NEAR(s.ratio, 4.0 / 6, 1e-12);
  EXPECT_NEAR(s.score, 100 * std::exp(-0.5), 1e-9);  // 60.65307

  // hyp "a b c d" vs ref "a b x y z": 2/4 = 50%, 1/3 = 33.333%, then zero orders
  // 100/(2*2) = 25% and 100/(4*1) = 25%; BP = exp(1 - 5/4) = 0.7788008.
  // BLEU = 0.7788008 * (50 * 33.333 * 25 * 25)^(1/4) = 0.7788008 * 31.947 = 24.88047
  const BleuScore t = corpus_bleu({"a b c d"}, {"a b x y z"});
  EXPECT_NEAR(t.bp, std::exp(-0.25), 1e-12);
  EXPECT_NEAR(t.score, 24.88046950, 1e-6);
}

TEST(CorpusBleu, OrderWithoutHypothesisNgramsGivesZero) {
  // "the cat" has no 3-grams: sacreBLEU stops there, precisions 3 and 4 stay 0, score 0.
  const BleuScore s = corpus_bleu({"the cat"}, {"the cat sat on the mat"});
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.precisions, (std::array<double, 4>{100.0, 100.0, 0.0, 0.0}));
  EXPECT_NEAR(s.bp, std::exp(1.0 - 3.0), 1e-12);
}

TEST(CorpusBleu, NoMatchesGivesZeroAndZeroPrecisions) {
  const BleuScore s = corpus_bleu({"x y z w", "v"}, {"a b c d", "e"});
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.precisions, (std::array<double, 4>{0, 0, 0, 0}));
  EXPECT_EQ(s.bp, 1.0);
  EXPECT_EQ(s.stats.totals, (std::array<int64_t, 4>{5, 3, 2, 1}));
}

TEST(CorpusBleu, EmptyHypothesesGiveZero) {
  const BleuScore s = corpus_bleu({"", "  "}, {"a b c", "d"});
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.bp, 0.0);  // hyp_len 0 < ref_len 4
  EXPECT_EQ(s.hyp_len, 0);
  EXPECT_EQ(s.ref_len, 4);

  const BleuScore empty = corpus_bleu({}, {});
  EXPECT_EQ(empty.score, 0.0);
  EXPECT_EQ(empty.ratio, 0.0);
}

TEST(CorpusBleu, RejectsSizeMismatchAndEmptyReference) {
  EXPECT_THROW(corpus_bleu({"a", "b"}, {"a"}), std::invalid_argument);
  EXPECT_THROW(corpus_bleu({"a"}, {""}), std::invalid_argument);
}

TEST(CorpusBleu, FormatsLikeSacreBleu) {
  const BleuScore s = corpus_bleu({"the cat sat on the mat"}, {"the cat is on the mat"});
  EXPECT_EQ(s.format(),
            "BLEU = 37.99 83.3/60.0/25.0/16.7 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)");
  EXPECT_EQ(s.format(1).substr(0, 11), "BLEU = 38.0");
  EXPECT_EQ(s.signature, "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.3.1");
}

// ---- reading files ----------------------------------------------------------------------------

class BleuFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    if (name.size() > 3 && name.substr(name.size() - 3) == ".gz") {
      gzFile f = gzopen(path.c_str(), "wb");
      gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
      gzclose(f);
    } else {
      std::ofstream(path, std::ios::binary) << text;
    }
    return path;
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  const std::filesystem::path& dir_ = scratch_.path();
};

TEST_F(BleuFiles, ReadsLinesOfPlainAndGzipFiles) {
  EXPECT_EQ(read_text_lines(write("a.txt", "one\ntwo\r\n\nlast")),
            (std::vector<std::string>{"one", "two\r", "", "last"}));
  EXPECT_EQ(read_text_lines(write("b.txt.gz", "x y\nz\n")), (std::vector<std::string>{"x y", "z"}));
  EXPECT_TRUE(read_text_lines(write("empty.txt", "")).empty());
}

// The BLEU reader and the corpus reader share one file reader (base/util/file_bytes.h): gzip is
// recognised by its magic bytes, not the name. A compressed hypothesis file without .gz was
// read as raw bytes (and failed as invalid UTF-8) while training read the same file fine.
TEST_F(BleuFiles, GzipIsRecognisedByContentNotName) {
  const std::string packed = write("packed.gz", "x y\nz\n");
  const std::string renamed = (dir_ / "packed-hyp.txt").string();
  std::filesystem::rename(packed, renamed);
  EXPECT_EQ(read_text_lines(renamed), (std::vector<std::string>{"x y", "z"}));
  const std::string plain = (dir_ / "plain.gz").string();  // a plain file named .gz
  std::ofstream(plain, std::ios::binary) << "a b\n";
  EXPECT_EQ(read_text_lines(plain), (std::vector<std::string>{"a b"}));
}

TEST_F(BleuFiles, ScoresAFilePair) {
  const BleuCorpus c = read_bleu_corpus(write("ref.txt", "the cat is on the mat  \n"),
                                        write("hyp.txt.gz", "the cat sat on the mat\n"));
  EXPECT_EQ(c.refs, (std::vector<std::string>{"the cat is on the mat"}));
  EXPECT_NEAR(corpus_bleu(c.hyps, c.refs).score, 37.99178428, 1e-6);
}

TEST_F(BleuFiles, MismatchedLineCountsNameTheHypothesisFile) {
  const std::string ref = write("ref.txt", "a\nb\nc\n");
  const std::string hyp = write("hyp.txt", "a\nb\n");
  try {
    read_bleu_corpus(ref, hyp);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), hyp);
    EXPECT_NE(e.message().find("2 lines"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find(ref), std::string::npos) << e.what();
  }
}

TEST_F(BleuFiles, UnreadableFilesNameTheFile) {
  const std::string missing = (dir_ / "missing.txt").string();
  const std::string hyp = write("hyp.txt", "a\n");
  try {
    read_bleu_corpus(missing, hyp);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), missing);
  }
  const std::string broken = write("broken.gz", "");
  std::ofstream(broken, std::ios::binary) << std::string("\x1f\x8b\x08\x00garbage", 12);
  EXPECT_THROW(read_text_lines(broken), InputError);
}

TEST_F(BleuFiles, EmptyReferenceLineAndBadUtf8NameTheLine) {
  const std::string ref = write("ref.txt", "a\n  \nc\n");
  try {
    read_bleu_corpus(ref, write("hyp.txt", "a\nb\nc\n"));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), ref);
    EXPECT_EQ(e.line(), 2);
  }
  const std::string bad = write("bad.txt", "ok\nbad \xC3\x28\n");
  try {
    read_text_lines(bad);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), bad);
    EXPECT_EQ(e.line(), 2);
  }
}

TEST_F(BleuFiles, EmptyHypothesisFileIsAnError) {
  EXPECT_THROW(read_bleu_corpus(write("ref.txt", ""), write("hyp.txt", "")), InputError);
}

// sacreBLEU's sentence_bleu takes the geometric mean over the orders the hypothesis has: the
// corpus formula would score a 2-word sentence 0 whatever it says.
TEST(SentenceBleu, AveragesOverTheOrdersTheHypothesisHas) {
  // "the cat" vs "the cat sat": 2/2, 1/1, no 3-grams -> order 2; BP = exp(1 - 3/2).
  const BleuScore two = sentence_bleu("the cat", "the cat sat");
  EXPECT_NEAR(two.score, 100 * std::exp(-0.5), 1e-9);  // 60.65307
  EXPECT_EQ(corpus_bleu({"the cat"}, {"the cat sat"}).score, 0.0);
  EXPECT_NE(two.signature.find("eff:yes"), std::string::npos) << two.signature;

  // "the dog runs" vs "the cat runs": 2/3; bigrams 0/2 -> 100/(2*2) = 25%; the trigram 0/1 ->
  // 100/(4*1) = 25%; no 4-grams -> order 3. BLEU = (66.667 * 25 * 25)^(1/3) = 34.6681.
  const BleuScore three = sentence_bleu("the dog runs", "the cat runs");
  EXPECT_NEAR(three.score, std::cbrt(200.0 / 3 * 25 * 25), 1e-9);
  EXPECT_NEAR(three.score, 34.66806, 1e-5);

  // Four orders present: as the corpus formula. "the cat sat on the mat" vs "the cat sat on a
  // mat": 5/6, 3/5, 2/4, 1/3, BP 1 -> (5/6 * 3/5 * 1/2 * 1/3)^(1/4) = 53.7285.
  const BleuScore four = sentence_bleu("the cat sat on the mat", "the cat sat on a mat");
  EXPECT_NEAR(four.score, 100 * std::pow(1.0 / 12, 0.25), 1e-9);
  EXPECT_EQ(four.score, corpus_bleu({"the cat sat on the mat"}, {"the cat sat on a mat"}).score);

  EXPECT_EQ(sentence_bleu("x y", "a b").score, 0.0);  // no match of any order
  EXPECT_NEAR(sentence_bleu("the cat", "the cat").score, 100.0, 1e-9);
}

}  // namespace test_bleu
}  // namespace fathom
