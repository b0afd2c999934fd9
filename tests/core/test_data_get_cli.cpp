// `fathom data get` as a user runs it, on catalogs of the test's own: a local copy (--from)
// checked against SHA-256 values known by hand (FIPS 180-2's "abc" and the empty message), a
// damaged copy that installs nothing, archive members joined and SGML stripped, and downloads
// from a real HTTP server on 127.0.0.1 -- and from a closed port, which says how to use --from.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/util/process.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_data_get_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

// FIPS 180-2, appendix B.1: SHA-256("abc"); and the hash of no bytes at all.
constexpr const char* kAbcSha256 =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr const char* kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// RFC 1321, appendix A.5: MD5("abc").
constexpr const char* kAbcMd5 = "900150983cd24fb0d6963f7d28e17f72";

// A port on 127.0.0.1 that nothing listens on once this returns (bound, read, closed).
int free_local_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

class DataGetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = fathom::testing::built_fathom_binary();
    ASSERT_TRUE(fs::exists(binary_)) << binary_;
    fs::create_directories(dir_.path() / "copy");
    std::ofstream(dir_.path() / "copy" / "abc.txt", std::ios::binary) << "abc";
    std::ofstream(dir_.path() / "copy" / "empty.txt", std::ios::binary);
  }

  ProgramResult get(const std::vector<std::string>& args) {
    std::vector<std::string> argv{binary_.string(), "data", "get", "--no-progress"};
    argv.insert(argv.end(), args.begin(), args.end());
    return fathom::run_program(argv, "",
                               fathom::environment_with({"FATHOM_DATA=" + home().string()}), 120);
  }

  fs::path write_catalog(const std::string& text) {
    const fs::path path = dir_.path() / "catalog.yaml";
    std::ofstream(path) << text;
    return path;
  }

  // The two files, from `base` (an address or any prefix: --from ignores it).
  fs::path plain_catalog(const std::string& base) {
    return write_catalog(
        "name: tiny\n"
        "about: two files\n"
        "downloads:\n"
        "  - file: abc.txt\n"
        "    url: " +
        base +
        "/abc.txt\n"
        "    bytes: 3\n"
        "    sha256: " +
        std::string(kAbcSha256) +
        "\n"
        "  - file: empty.txt\n"
        "    url: " +
        base +
        "/empty.txt\n"
        "    sha256: " +
        std::string(kEmptySha256) + "\n");
  }

  fs::path home() const { return dir_.path() / "corpora"; }
  fs::path binary_;
  fathom::testing::TempDir dir_;
};

TEST_F(DataGetCli, ALocalCopyIsCheckedAndInstalledOnce) {
  const fs::path catalog = plain_catalog("https://example.invalid");
  const ProgramResult r =
      get({"--catalog", catalog.string(), "--from", (dir_.path() / "copy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fathom::testing::read_text(home() / "tiny" / "abc.txt"), "abc");
  EXPECT_TRUE(fs::exists(home() / "tiny" / "empty.txt"));
  EXPECT_TRUE(fs::exists(home() / "tiny" / "corpus.json"));
  EXPECT_NE(r.out.find("corpus:tiny/abc.txt"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(home() / ".downloads" / "tiny")) << "kept only until the corpus is made";

  // A second call finds it and fetches nothing (the copy is gone: it would fail otherwise).
  fs::remove_all(dir_.path() / "copy");
  const ProgramResult again = get({"--catalog", catalog.string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already here"), std::string::npos) << again.out;
}

TEST_F(DataGetCli, ADamagedCopyInstallsNothingAndSaysBothHashes) {
  std::ofstream(dir_.path() / "copy" / "abc.txt", std::ios::binary) << "abd";
  const ProgramResult r = get({"--catalog", plain_catalog("https://example.invalid").string(),
                               "--from", (dir_.path() / "copy").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("abc.txt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(kAbcSha256), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was installed"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(home() / "tiny"));
  EXPECT_FALSE(fs::exists(home() / ".downloads" / "tiny" / "abc.txt"));
}

// Where only an MD5 is published (WMT'14 test-full.tgz), the file is checked by it: a match
// installs and prints the SHA-256 to record, a different file installs nothing.
TEST_F(DataGetCli, AFileWithOnlyAnMd5RecordedIsCheckedByIt) {
  const fs::path catalog = write_catalog(
      "name: md5only\n"
      "downloads:\n"
      "  - {file: abc.txt, url: https://example.invalid/abc.txt, md5: " +
      std::string(kAbcMd5) + "}\n");
  const std::string from = (dir_.path() / "copy").string();
  const ProgramResult r = get({"--catalog", catalog.string(), "--from", from});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fathom::testing::read_text(home() / "md5only" / "abc.txt"), "abc");
  EXPECT_NE((r.out + r.err).find(kAbcSha256), std::string::npos) << "the SHA-256 to record";

  fs::remove_all(home() / "md5only");
  std::ofstream(dir_.path() / "copy" / "abc.txt", std::ios::binary) << "abd";
  const ProgramResult damaged = get({"--catalog", catalog.string(), "--from", from});
  EXPECT_NE(damaged.exit_code, 0);
  EXPECT_NE(damaged.err.find("MD5"), std::string::npos) << damaged.err;
  EXPECT_NE(damaged.err.find(kAbcMd5), std::string::npos) << damaged.err;
  EXPECT_NE(damaged.err.find("nothing was installed"), std::string::npos) << damaged.err;
  EXPECT_FALSE(fs::exists(home() / "md5only"));
}

TEST_F(DataGetCli, ArchiveMembersAreJoinedAndSgmlStripped) {
  // An archive like WMT's: a text member without a final newline, a gzip member, an SGML set.
  const fs::path src = dir_.path() / "src";
  fs::create_directories(src / "training");
  std::ofstream(src / "training" / "a.en") << "one\ntwo";
  std::ofstream(src / "b.en") << "three\n";
  ASSERT_EQ(fathom::run_program({"gzip", (src / "b.en").string()}).exit_code, 0);
  std::ofstream(src / "test.sgm") << "<refset setid=\"x\">\n<doc docid=\"d\">\n"
                                     "<seg id=\"1\"> Hello , world . </seg>\n"
                                     "<seg id=\"2\">A &amp; B</seg>\n</doc>\n</refset>\n";
  const fs::path archive = dir_.path() / "copy" / "all.tgz";
  ASSERT_EQ(fathom::run_program({"tar", "-czf", archive.string(), "-C", src.string(),
                                 "training/a.en", "b.en.gz", "test.sgm"})
                .exit_code,
            0);
  const fs::path catalog = write_catalog(
      "name: packed\n"
      "downloads:\n"
      "  - {file: all.tgz, url: https://example.invalid/all.tgz}\n"
      "outputs:\n"
      "  - file: train.en\n"
      "    from:\n"
      "      - {download: all.tgz, member: training/a.en}\n"
      "      - {download: all.tgz, member: b.en.gz}\n"
      "  - file: test.en\n"
      "    from: [{download: all.tgz, member: test.sgm, sgml: true}]\n");
  const std::string from = (dir_.path() / "copy").string();

  // No hash recorded: refused, with this copy's hash to check and record.
  const ProgramResult refused = get({"--catalog", catalog.string(), "--from", from});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--unverified"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(home() / "packed"));

  const ProgramResult r = get({"--catalog", catalog.string(), "--from", from, "--unverified"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fathom::testing::read_text(home() / "packed" / "train.en"), "one\ntwo\nthree\n");
  EXPECT_EQ(fathom::testing::read_text(home() / "packed" / "test.en"),
            "Hello , world .\nA &amp; B\n");
  EXPECT_FALSE(fs::exists(home() / "packed" / "all.tgz")) << "the archive is not the corpus";
}

TEST_F(DataGetCli, DownloadsFromAnHttpServerAndWithoutOneSaysHowToUseFrom) {
  const auto python = fathom::find_on_path("python3");
  if (!python)
    GTEST_SKIP() << "SKIPPED: no python3 for a local HTTP server (apt-get install python3)";
  if (!fathom::find_on_path("curl"))  // what `fathom data get` downloads with, and the probe
    GTEST_SKIP() << "SKIPPED: no curl (apt-get install curl)";
  const int port = free_local_port();
  const pid_t server = fork();
  if (server == 0) {
    const std::string p = std::to_string(port), d = (dir_.path() / "copy").string();
    execl(python->c_str(), "python3", "-m", "http.server", p.c_str(), "--bind", "127.0.0.1",
          "--directory", d.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  bool up = false;  // until it answers
  for (int i = 0; i < 100 && !up; ++i) {
    up = fathom::run_program({"curl", "-fs", "-o", "/dev/null", base + "/abc.txt"}).exit_code == 0;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const ProgramResult r = up ? get({"--catalog", plain_catalog(base).string()}) : ProgramResult{};
  kill(server, SIGTERM);
  waitpid(server, nullptr, 0);
  ASSERT_TRUE(up) << "the local HTTP server did not start";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fathom::testing::read_text(home() / "tiny" / "abc.txt"), "abc");

  // The server is gone: the same corpus under another name cannot be fetched.
  fs::remove_all(home() / "tiny");
  const ProgramResult offline = get({"--catalog", plain_catalog(base).string()});
  EXPECT_NE(offline.exit_code, 0);
  EXPECT_NE(offline.err.find("could not download " + base + "/abc.txt"), std::string::npos)
      << offline.err;
  EXPECT_NE(offline.err.find("fathom data get tiny --from DIR"), std::string::npos) << offline.err;
  EXPECT_FALSE(fs::exists(home() / "tiny"));
}

}  // namespace test_data_get_cli
