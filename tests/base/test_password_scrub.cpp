// What is left of libpq's messages once the store's passwords are scrubbed
// (db/pg_connection.h): nothing of a password, also where libpq cut it at a character a URL
// reserves and quoted a piece -- and the message's own words, where a password merely contains
// them. The messages are libpq's, as it printed them for these URLs (issue 57 item 1).
#include <gtest/gtest.h>

#include <string>

#include "db/pg_connection.h"
#include "db/store_url.h"

namespace test_password_scrub {
using fathom::db::scrub_passwords;
using fathom::db::url_passwords;

TEST(PasswordScrub, PiecesCutAtReservedCharactersGoWordsStay) {
  // postgresql://u:p@ss@Secret6@127.0.0.1:1/db: libpq took "p" for the password.
  const auto split = url_passwords("postgresql://u:p@ss@Secret6@127.0.0.1:1/db");
  ASSERT_EQ(split, (std::vector<std::string>{"p@ss@Secret6"}));
  EXPECT_EQ(
      scrub_passwords("could not translate host name \"ss@Secret6@127.0.0.1\" to address", split),
      "could not translate host name \"***@127.0.0.1\" to address");
  // "Wr@ngPw1234": host "ngPw1234@...", a piece after the '@'.
  EXPECT_EQ(scrub_passwords("host \"ngPw1234@127.0.0.1\"", {"Wr@ngPw1234"}),
            "host \"***@127.0.0.1\"");
  // A password with '/', '?' or '#' is one password to the redaction, whole.
  EXPECT_EQ(url_passwords("postgresql://u:ab/Secret1@127.0.0.1:5/db"),
            (std::vector<std::string>{"ab/Secret1"}));
  EXPECT_EQ(url_passwords("postgresql://u:ab?Sec#ret2@127.0.0.1:5/db"),
            (std::vector<std::string>{"ab?Sec#ret2"}));
  EXPECT_EQ(scrub_passwords("invalid port \"ab/Secret1@127.0.0.1\"", {"ab/Secret1"}),
            "invalid port \"***@127.0.0.1\"");
  // A password that contains a word of the message leaves the word alone (no reserved
  // character cuts it there): the message stays readable.
  EXPECT_EQ(scrub_passwords("password authentication failed for user \"fathom\"",
                            {"hunter2-not-the-password"}),
            "password authentication failed for user \"fathom\"");
}

}  // namespace test_password_scrub
