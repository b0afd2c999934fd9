#include "db/store.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "db/migrations.h"
#include "db/run_status.h"
#include "db/store_backends.h"

namespace fathom::db {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

double unix_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

bool is_valid_status(const std::string& status) {
  const auto& all = status::all();
  return std::find(all.begin(), all.end(), status) != all.end();
}

bool is_terminal_status(const std::string& status) {
  return is_valid_status(status) && !status::is_active(status);
}

Store Store::open(const std::string& location, OpenMode mode) {
  StoreUrl url = parse_store_url(location);
  auto backend = open_backend(url, mode);
  return Store(location, std::move(url), mode, std::move(backend));
}

std::optional<std::string> Store::busy_before_open(const std::string& location) {
  try {
    return backend_busy_before_open(parse_store_url(location));
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

Store::Store(std::string location, StoreUrl url, OpenMode mode,
             std::unique_ptr<StoreBackend> backend)
    : location_(std::move(location)),
      url_(std::move(url)),
      mode_(mode),
      backend_(std::move(backend)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

int Store::schema_version() const { return backend()->schema_version(); }
int Store::latest_schema_version() { return db::latest_schema_version(); }

void Store::require_writable(const char* what) const {
  if (mode_ == OpenMode::ReadOnly)
    throw std::logic_error(path() + ": " + what + " on a store opened read-only");
}

// ---- writes -------------------------------------------------------------------------------

int64_t Store::create_run(const NewRun& run) {
  if (!is_valid_status(run.status))
    throw std::invalid_argument("create_run: invalid status '" + run.status + "'");
  require_writable("create_run");
  return backend()->create_run(run, unix_now());
}

std::vector<int64_t> Store::create_runs(const std::vector<NewTaggedRun>& runs) {
  for (const auto& r : runs)
    if (!is_valid_status(r.run.status))
      throw std::invalid_argument("create_runs: invalid status '" + r.run.status + "'");
  require_writable("create_runs");
  if (runs.empty()) return {};
  return backend()->create_runs(runs, unix_now());
}

Lease Store::mark_running(int64_t run, const std::string& host, const std::string& device) {
  require_writable("mark_running");
  return Lease{run, backend()->take_run(run, host, device, unix_now())};
}

namespace {
void require_final(const std::string& status) {
  if (!is_terminal_status(status))
    throw std::invalid_argument("finish_run: '" + status + "' is not a final status");
}
}  // namespace

void Store::finish_run(int64_t run, const std::string& status, const std::string& error,
                       std::optional<int64_t> diverged_step) {
  require_final(status);
  require_writable("finish_run");
  backend()->finish_run(run, status, error, diverged_step, unix_now(), std::nullopt);
}

void Store::heartbeat(int64_t run, int64_t updates) {
  require_writable("heartbeat");
  backend()->heartbeat(run, updates, unix_now(), std::nullopt);
}

bool Store::requeue_run(int64_t run, const std::string& reason,
                        const std::vector<std::string>& from) {
  require_writable("requeue_run");
  for (const auto& status : from)
    if (!is_valid_status(status) || status == status::kQueued)
      throw std::invalid_argument("requeue_run: cannot requeue from '" + status + "'");
  return backend()->requeue_run(run, reason, unix_now(), from, std::nullopt);
}

bool Store::cancel_run(int64_t run, const std::string& reason) {
  require_writable("cancel_run");
  return backend()->cancel_run(run, reason, unix_now());
}

void Store::set_final_metric(int64_t run, const std::string& name, double value) {
  require_writable("set_final_metric");
  backend()->set_final_metric(run, name, value, std::nullopt);
}

void Store::add_artifact(int64_t run, const std::string& kind, const std::string& path,
                         std::optional<int64_t> step) {
  require_writable("add_artifact");
  backend()->add_artifacts(run, {Artifact{kind, path, step}}, {}, unix_now(), std::nullopt);
}

void Store::remove_artifacts(int64_t run, const std::vector<std::string>& kinds) {
  if (kinds.empty()) return;
  require_writable("remove_artifacts");
  backend()->add_artifacts(run, {}, kinds, unix_now(), std::nullopt);
}

void Store::replace_artifacts(int64_t run, const std::vector<Artifact>& artifacts) {
  if (artifacts.empty()) return;
  require_writable("replace_artifacts");
  // A kind both added and "removed" is replaced: the backend's running check comes with it.
  std::vector<std::string> kinds;
  for (const auto& a : artifacts) kinds.push_back(a.kind);
  backend()->add_artifacts(run, artifacts, kinds, unix_now(), std::nullopt);
}

void Store::set_tag(int64_t run, const std::string& key, const std::string& value) {
  require_writable("set_tag");
  backend()->set_tag(run, key, value, std::nullopt);
}

void Store::write_metrics(int64_t run, const std::vector<MetricRow>& rows) {
  if (rows.empty()) return;
  require_writable("write_metrics");
  backend()->write_metrics(run, rows, std::nullopt);
}

void Store::write_probes(int64_t run, const std::vector<ProbeRow>& rows) {
  if (rows.empty()) return;
  require_writable("write_probes");
  backend()->write_probes(run, rows, std::nullopt);
}

void Store::delete_metrics_after(int64_t run, int64_t step) {
  require_writable("delete_metrics_after");
  backend()->delete_metrics_after(run, step, std::nullopt);
}

void Store::delete_run(int64_t run) {
  require_writable("delete_run");
  backend()->delete_run(run);
}

int64_t Store::add_analysis(const NewAnalysis& analysis) {
  require_writable("add_analysis");
  if (analysis.kind.empty()) throw std::invalid_argument("add_analysis: empty kind");
  return backend()->add_analysis(analysis, unix_now());
}

std::optional<RunRecord> Store::claim_next_run(const std::string& sweep, const std::string& host,
                                               const std::string& device,
                                               const std::vector<int64_t>& skip) {
  require_writable("claim_next_run");
  return backend()->claim_next_run(sweep, host, device, unix_now(), skip);
}

// ---- the holder's writes ------------------------------------------------------------------

void Store::mark_running(const Lease& lease, const std::string& host, const std::string& device) {
  require_writable("mark_running");
  backend()->mark_running(lease.run, host, device, unix_now(), lease.generation);
}

void Store::finish_run(const Lease& lease, const std::string& status, const std::string& error,
                       std::optional<int64_t> diverged_step) {
  require_final(status);
  require_writable("finish_run");
  backend()->finish_run(lease.run, status, error, diverged_step, unix_now(), lease.generation);
}

void Store::heartbeat(const Lease& lease, int64_t updates) {
  require_writable("heartbeat");
  backend()->heartbeat(lease.run, updates, unix_now(), lease.generation);
}

void Store::touch_heartbeat(const Lease& lease) {
  require_writable("touch_heartbeat");
  backend()->touch_heartbeat(lease.run, unix_now(), lease.generation);
}

void Store::requeue_run(const Lease& lease, const std::string& reason) {
  require_writable("requeue_run");
  backend()->requeue_run(lease.run, reason, unix_now(), {}, lease.generation);
}

void Store::set_final_metric(const Lease& lease, const std::string& name, double value) {
  require_writable("set_final_metric");
  backend()->set_final_metric(lease.run, name, value, lease.generation);
}

void Store::add_artifacts(const Lease& lease, const std::vector<Artifact>& artifacts,
                          const std::vector<std::string>& removed) {
  require_writable("add_artifacts");
  backend()->add_artifacts(lease.run, artifacts, removed, unix_now(), lease.generation);
}

void Store::set_tag(const Lease& lease, const std::string& key, const std::string& value) {
  require_writable("set_tag");
  backend()->set_tag(lease.run, key, value, lease.generation);
}

void Store::write_metrics(const Lease& lease, const std::vector<MetricRow>& rows) {
  if (rows.empty()) return;
  require_writable("write_metrics");
  backend()->write_metrics(lease.run, rows, lease.generation);
}

void Store::delete_metrics_after(const Lease& lease, int64_t step) {
  require_writable("delete_metrics_after");
  backend()->delete_metrics_after(lease.run, step, lease.generation);
}

void Store::write_probes(const Lease& lease, const std::vector<ProbeRow>& rows) {
  if (rows.empty()) return;
  require_writable("write_probes");
  backend()->write_probes(lease.run, rows, lease.generation);
}

void Store::set_config(const Lease& lease, const std::string& config_yaml,
                       const std::string& config_json) {
  require_writable("set_config");
  backend()->set_config(lease.run, config_yaml, config_json, lease.generation);
}

void Store::import_run(const RunExport& run) {
  require_writable("import_run");
  if (!is_valid_status(run.run.status))
    throw std::invalid_argument("import_run: invalid status '" + run.run.status + "'");
  backend()->import_run(run);
}

void Store::import_analysis(const AnalysisRecord& analysis) {
  require_writable("import_analysis");
  backend()->import_analysis(analysis);
}

// ---- reads --------------------------------------------------------------------------------

std::vector<Artifact> Store::artifacts(int64_t run) const { return backend()->artifacts(run); }

std::map<std::string, std::string> Store::tags(int64_t run) const { return backend()->tags(run); }

std::map<int64_t, std::string> Store::tagged_runs(const std::string& key) const {
  return backend()->tagged_runs(key);
}

std::map<int64_t, std::map<std::string, std::string>> Store::listing_tags(
    const std::vector<int64_t>& runs) const {
  return backend()->listing_tags(runs);
}

std::vector<RunRecord> Store::list_runs(const std::string& sweep_filter,
                                        const std::vector<std::string>& config_contains) const {
  for (const auto& word : config_contains)
    if (word.empty() || !std::all_of(word.begin(), word.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
                 c == '-' || c == '"';
        }))
      throw std::invalid_argument("Store::list_runs: '" + word +
                                  "' is not a word of letters, digits and _ . + - \"");
  return backend()->list_runs(sweep_filter, config_contains);
}

std::vector<RunRecord> Store::list_run_states_with_metrics() const {
  return backend()->list_run_states_with_metrics();
}

std::vector<RunRecord> Store::runs_by_id(const std::vector<int64_t>& ids) const {
  return backend()->runs_by_id(ids);
}

std::vector<RunRecord> Store::list_run_states(const std::string& sweep) const {
  return backend()->list_run_states(sweep);
}

std::vector<RunConfigValues> Store::config_values(const std::string& sweep,
                                                  const std::vector<std::string>& keys) const {
  std::vector<std::vector<std::string>> split;
  for (const auto& key : keys) {
    // The keys become part of the statement: only what a config key can be.
    const bool plain =
        !key.empty() && key.front() != '.' && key.back() != '.' &&
        key.find("..") == std::string::npos && std::all_of(key.begin(), key.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
        });
    if (!plain) throw std::invalid_argument("config_values: not a config key: '" + key + "'");
    auto& parts = split.emplace_back();
    std::stringstream in(key);
    for (std::string part; std::getline(in, part, '.');) parts.push_back(part);
  }
  return backend()->config_values(sweep, split);
}

std::optional<RunRecord> Store::find_run(const std::string& id_or_name) const {
  if (all_digits(id_or_name))
    if (auto run = backend()->run_by_id(std::stoll(id_or_name))) return run;
  return backend()->latest_run_named(id_or_name);
}

std::vector<MetricPoint> Store::metric_series(int64_t run, const std::string& name) const {
  return backend()->metric_points(run, name, INT64_MIN);
}

std::vector<MetricPoint> Store::metric_points_after(int64_t run, const std::string& name,
                                                    int64_t after_step) const {
  return backend()->metric_points(run, name, after_step);
}

int64_t Store::last_metric_step(int64_t run, const std::string& name) const {
  return backend()->last_metric_step(run, name);
}

std::map<int64_t, MetricPoint> Store::best_points(const std::vector<int64_t>& runs,
                                                  const std::string& name, bool higher) const {
  return backend()->best_points(runs, name, higher);
}

std::vector<CurveReply> Store::poll_curves(const std::vector<CurveRequest>& requests) const {
  if (requests.empty()) return {};
  return backend()->poll_curves(requests);
}

std::vector<std::string> Store::metric_names(int64_t run) const {
  return backend()->metric_names(run);
}

std::vector<MetricRow> Store::metric_rows(int64_t run) const { return backend()->metric_rows(run); }

std::vector<std::string> Store::probe_names(int64_t run) const {
  return backend()->probe_names(run);
}

ProbeSeries Store::probe_series(int64_t run, const std::string& probe, int64_t after_step) const {
  return backend()->probe_series(run, probe, after_step);
}

RunExport Store::export_run(int64_t run) const {
  RunExport out;
  auto record = backend()->run_by_id(run);
  if (!record) throw std::invalid_argument(path() + ": no run with id " + std::to_string(run));
  out.run = std::move(*record);
  out.tags = tags(run);
  out.artifacts = artifacts(run);
  out.metrics = metric_rows(run);
  out.probes = backend()->probe_rows(run);
  return out;
}

std::vector<AnalysisRecord> Store::list_analyses(std::optional<int64_t> run,
                                                 const std::string& kind) const {
  return backend()->list_analyses(run, kind);
}

std::optional<AnalysisRecord> Store::get_analysis(int64_t id) const {
  return backend()->get_analysis(id);
}

StoreCounts Store::counts() const { return backend()->counts(); }
int64_t Store::last_analysis_id() const { return backend()->last_analysis_id(); }

std::optional<std::string> Store::busy_reason() const { return backend()->busy_reason(); }
std::optional<long long> Store::write_lock_holder() const { return backend()->write_lock_holder(); }

StoreBackend* Store::backend() const {
  if (!backend_) throw std::runtime_error(path() + ": no connection (reopening the store failed)");
  return backend_.get();
}

bool Store::connection_stale() const { return !backend_ || backend_->connection_stale(); }

void Store::reopen() {
  backend_.reset();  // its locks go before the new connection takes its own
  backend_ = open_backend(url_, mode_);
}

bool Store::reopen_if_stale() {
  if (!connection_stale()) return false;
  reopen();
  return true;
}

}  // namespace fathom::db
