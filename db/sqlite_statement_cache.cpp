#include "db/sqlite_statement_cache.h"

namespace fathom::db {

StatementCache::Use::~Use() {
  if (!statement_) return;  // moved from
  statement_->reset();      // no read left open, no bindings left
  if (entry_) entry_->in_use = false;
}

StatementCache::Use StatementCache::take(const std::string& sql) {
  if (auto it = entries_.find(sql); it != entries_.end()) {
    Entry& entry = it->second;
    if (entry.in_use) {  // nested: a statement of its own
      auto own = std::make_unique<Statement>(db_, sql.c_str());
      Statement* statement = own.get();
      return Use(statement, nullptr, std::move(own));
    }
    entry.in_use = true;
    return Use(entry.statement.get(), &entry, nullptr);
  }
  if (entries_.size() >= kMaxStatements)
    for (auto it = entries_.begin(); it != entries_.end();)
      it = it->second.in_use ? std::next(it) : entries_.erase(it);
  auto statement = std::make_unique<Statement>(db_, sql.c_str());  // throws before it is kept
  Entry& entry = entries_[sql];
  entry.statement = std::move(statement);
  entry.in_use = true;
  return Use(entry.statement.get(), &entry, nullptr);
}

}  // namespace fathom::db
