#pragma once
// A connection's prepared statements kept for reuse, by their SQL text: preparing is most of a
// small query's cost (the dashboard's poll of 4,000 curves' tails spent more time in
// sqlite3_prepare_v2 than in running the queries). A statement is reset and its bindings
// cleared when its use ends -- also when a row callback threw -- so none keeps a read open
// between queries; a statement in use when its text comes again (a query inside another's row
// callback) is not shared: that use gets one of its own.
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

#include "db/sqlite_handle.h"

namespace fathom::db {

class StatementCache {
  struct Entry {
    std::unique_ptr<Statement> statement;
    bool in_use = false;
  };

 public:
  // Texts kept at most: past it the statements not in use are dropped (an IN list's text
  // varies with its length).
  static constexpr size_t kMaxStatements = 64;

  explicit StatementCache(const Connection& db) : db_(db) {}

  // One use of a statement: reset and given back when it ends.
  class Use {
   public:
    Use(Use&& other) noexcept
        : statement_(other.statement_), entry_(other.entry_), owned_(std::move(other.owned_)) {
      other.statement_ = nullptr;
    }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    Use& operator=(Use&&) = delete;
    ~Use();
    Statement& operator*() const { return *statement_; }

   private:
    friend class StatementCache;
    Use(Statement* statement, Entry* entry, std::unique_ptr<Statement> owned)
        : statement_(statement), entry_(entry), owned_(std::move(owned)) {}
    Statement* statement_;
    Entry* entry_;                      // null for a statement of its own
    std::unique_ptr<Statement> owned_;  // that statement
  };

  Use take(const std::string& sql);
  size_t size() const { return entries_.size(); }

 private:
  const Connection& db_;
  std::unordered_map<std::string, Entry> entries_;  // elements stay put as others come and go
};

}  // namespace fathom::db
