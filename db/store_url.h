#pragma once
// Where a run store lives, as the user wrote it (--db, $FATHOM_DB, File > Open URL):
//   fathom.db, /abs/runs.db, sqlite:///abs/runs.db, sqlite://rel.db  -> SQLite
//   postgresql://user[:password]@host[:port]/name[?...], postgres://... -> PostgreSQL
// Anything else with "://" is an unknown scheme. The password never leaves this struct
// except in `connect`: messages use `shown`.
#include <string>
#include <vector>

namespace fathom::db {

struct StoreUrl {
  std::string scheme;   // "sqlite" or the URL's scheme ("postgresql" for postgres:// too)
  std::string connect;  // what the backend opens: a file path for SQLite, the URL otherwise
  std::string shown;    // safe to print: the password replaced by "***"
  bool is_file() const { return scheme == "sqlite"; }
};

// Throws InputError(field, ...) naming the redacted text for an empty or unknown location.
StoreUrl parse_store_url(const std::string& text, const std::string& field = "--db");

// `text` with any password (user:PASSWORD@ and password=... parameters) replaced by "***".
std::string redact_url(const std::string& text);

// The passwords `text` holds, as written (user:PASSWORD@, password=...), found without a URL
// parser: a URL too malformed to parse (an unclosed "[::1", a bad percent escape) must not
// leak them either, and a parser's error message may quote them.
std::vector<std::string> url_passwords(const std::string& text);

}  // namespace fathom::db
