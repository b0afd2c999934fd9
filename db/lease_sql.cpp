#include "db/lease_sql.h"

#include "db/run_status.h"

namespace fathom::db {

std::string held_by(const std::string& lease) {
  return "(lease = " + lease + " AND status = 'running')";
}

std::string held_by_if_fenced(const std::string& lease) {
  return "(" + lease + " IS NULL OR " + held_by(lease) + ")";
}

std::string take_run_set(const std::string& now, const std::string& host,
                         const std::string& device) {
  // A resumed run keeps its first start time and sheds the previous attempt's outcome.
  return "status = 'running', started_at = coalesce(started_at, " + now +
         "), heartbeat_at = " + now + ", host = " + host + ", device = " + device +
         ", error = NULL, diverged_step = NULL, finished_at = NULL, lease = lease + 1";
}

std::string requeue_set(const std::string& reason, const std::string& now) {
  return "status = 'queued', error = " + reason + ", finished_at = NULL, heartbeat_at = " + now +
         ", lease = lease + 1";
}

std::string status_in(const std::vector<std::string>& statuses) {
  std::string list;
  for (const auto& s : statuses) list += (list.empty() ? "'" : ", '") + s + "'";
  return "status IN (" + (list.empty() ? std::string("NULL") : list) + ")";
}

std::string id_list(const std::vector<int64_t>& ids) {
  std::string list;
  for (int64_t id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
  return list;
}

std::string id_not_in(const std::vector<int64_t>& ids) {
  return ids.empty() ? "" : " AND id NOT IN (" + id_list(ids) + ")";
}

std::string claim_next_sql(const std::vector<int64_t>& skip, const std::string& lock) {
  // `status = 'queued'` as a literal: what lets both engines pick through the partial index.
  return "UPDATE runs SET " + take_run_set("?2", "?3", "?4") +
         " WHERE id = (SELECT id FROM runs WHERE sweep = ?1 AND status = 'queued'" +
         id_not_in(skip) + " ORDER BY id LIMIT 1" + lock + ") RETURNING id";
}

void throw_unless_held(const Lease& lease, const std::string& status, int64_t generation) {
  if (status != status::kRunning || generation != lease.generation)
    throw LeaseLost(lease, status, generation);
}

}  // namespace fathom::db
