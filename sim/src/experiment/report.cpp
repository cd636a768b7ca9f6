// Merging experiment and sweep folders into one summary (report.hpp, docs/sweep.md).
#include "npu/sim/experiment/report.hpp"
#include "npu/sim/experiment/compile_warnings.hpp"
#include "npu/sim/experiment/resource_steps.hpp"
#include "npu/sim/experiment/summary_figures.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/csv.hpp"
#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/experiment/fusion_regressions.hpp"
#include "npu/sim/io/output_files.hpp"

namespace npu::sim {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

struct Row {
  PlannedCell plan;
  std::string status;  ///< ok | failed | invalid | missing | conflict
  RunSummary r;        ///< figures when ok
  std::string error;
  std::vector<std::string> sources;  ///< FOLDER/RUN_DIR of every folder that had a result
  VsNone vs;  ///< against the group's `none` cell, after the merge
};

/// The result of `cell` in `dir`: status ok, failed or missing.
Row read_cell(const std::string& dir, const PlannedCell& cell) {
  Row row;
  row.plan = cell;
  if (!cell.invalid.empty()) {
    row.status = "invalid";
    row.error = cell.invalid;
    return row;
  }
  const fs::path run_dir = fs::path(dir) / cell.run_dir;
  std::error_code ec;
  if (fs::exists(run_dir / "run_summary.json", ec)) {
    ExperimentJob job{cell.model_arg, cell.hw_arg, cell.strategy_arg, run_dir.string(), ""};
    row.r = read_run_summary(job);
    row.status = row.r.ok ? "ok" : "failed";
    row.error = row.r.error;
  } else if (fs::exists(run_dir / "failed.json", ec)) {
    row.status = "failed";
    try {
      std::ifstream in(run_dir / "failed.json");
      row.error = nlohmann::json::parse(in).at("error").get<std::string>();
    } catch (const std::exception& e) {
      row.error = fmt::format("{}: malformed failed.json: {}", (run_dir / "failed.json").string(), e.what());
    }
  } else {
    row.status = "missing";
    return row;
  }
  row.sources.push_back(run_dir.string());
  return row;
}

/// The first figure that differs between two results, or "" when they are the same.
std::string difference(const RunSummary& a, const RunSummary& b) {
  if (a.cycles != b.cycles) return fmt::format("cycles {} vs {}", a.cycles, b.cycles);
  if (a.latency_ms != b.latency_ms) return fmt::format("latency_ms {} vs {}", a.latency_ms, b.latency_ms);
  if (a.ddr_read_mb != b.ddr_read_mb) return fmt::format("ddr_read_mb {} vs {}", a.ddr_read_mb, b.ddr_read_mb);
  if (a.ddr_write_mb != b.ddr_write_mb) return fmt::format("ddr_write_mb {} vs {}", a.ddr_write_mb, b.ddr_write_mb);
  if (a.mac_utilisation != b.mac_utilisation) return "mac_utilisation";
  if (a.ddr_bw_utilisation != b.ddr_bw_utilisation) return "ddr_bw_utilisation";
  if (a.energy_mj != b.energy_mj) return "energy_mj";
  if (a.compulsory_mb && b.compulsory_mb && *a.compulsory_mb != *b.compulsory_mb)
    return fmt::format("compulsory_mb {} vs {}", *a.compulsory_mb, *b.compulsory_mb);
  if (a.host_nodes != b.host_nodes || a.host_mac_share != b.host_mac_share || a.host_time_share != b.host_time_share)
    return "host figures";
  return "";
}

/// Folds `next` (the same key from a later folder) into `cur`.
// The axis values a cell has in any of the folders that planned it: two sweeps planning one
// cell may sweep different axes (one ddr.data_rate_mtps, the other ddr.channels), and a label
// kept from the first alone left the other's column blank (a new-user finding: plots counted
// those cells under an empty category).
void merge_axes(PlannedCell& cur, const PlannedCell& next) {
  for (const auto& axis : next.axes) {  // not a structured binding: clang 14 cannot capture one
    const bool known =
        std::any_of(cur.axes.begin(), cur.axes.end(), [&](const auto& a) { return a.first == axis.first; });
    if (!known) cur.axes.push_back(axis);
  }
}

void merge(Row& cur, const Row& next) {
  merge_axes(cur.plan, next.plan);
  if (next.status == "missing" || cur.status == "invalid") return;
  if (cur.status == "missing") {
    PlannedCell plan = cur.plan;  // the first folder's labels (with every folder's axes)
    cur = next;
    cur.plan = plan;
    return;
  }
  if (cur.status == "conflict") {
    cur.sources.insert(cur.sources.end(), next.sources.begin(), next.sources.end());
    return;
  }
  std::string why;
  if (cur.status == "ok" && next.status == "ok")
    why = difference(cur.r, next.r);
  else if (cur.status != next.status)
    why = fmt::format("{} in one, {} in the other", cur.status, next.status);
  cur.sources.insert(cur.sources.end(), next.sources.begin(), next.sources.end());
  if (why.empty()) return;
  cur.status = "conflict";
  cur.error = fmt::format("results differ ({}) between {}", why, fmt::join(cur.sources, " and "));
}

std::string axes_text(const PlannedCell& c) {
  std::string s;
  for (const auto& [p, v] : c.axes) s += (s.empty() ? "" : " ") + p + "=" + v;
  return s;
}

/// Every folder's planned cells, read and merged by cell key in first-seen order; `axes`
/// receives the union of the folders' sweep axes. Throws ConfigError for a missing folder.
std::vector<Row> merged_rows(const std::vector<std::string>& dirs, std::vector<std::string>& axes) {
  std::vector<Row> rows;
  std::map<std::string, std::size_t> by_key;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      throw ConfigError(fmt::format("{}: error: {}\n  give the --out folder of an experiment or sweep", dir,
                                    fs::exists(dir, ec) ? "not a folder" : "no such folder"));
    const Plan plan = read_plan(dir);
    for (const auto& a : plan.axes)
      if (std::find(axes.begin(), axes.end(), a) == axes.end()) axes.push_back(a);
    for (const auto& cell : plan.cells) {
      Row row = read_cell(dir, cell);
      auto [it, fresh] = by_key.emplace(cell.key, rows.size());
      if (fresh)
        rows.push_back(std::move(row));
      else
        merge(rows[it->second], row);
    }
  }
  return rows;
}

/// Compares every ok row with its group's ok `none` row (after the merge) and counts statuses.
ReportCounts compare_and_count(std::vector<Row>& rows) {
  std::map<std::string, const Row*> baseline;
  for (const auto& row : rows)
    if (row.status == "ok" && row.plan.strategy == "none") baseline.emplace(row.plan.group, &row);
  ReportCounts n;
  n.cells = rows.size();
  for (auto& row : rows) {
    if (row.status == "ok") {
      ++n.ok;
      auto b = baseline.find(row.plan.group);
      if (b != baseline.end()) row.vs = compare_with_none(row.r, &b->second->r);
    }
    n.failed += row.status == "failed";
    n.invalid += row.status == "invalid";
    n.missing += row.status == "missing";
    n.conflicts += row.status == "conflict";
  }
  return n;
}

/// summary.csv: the experiment's columns (same formats), then one column per axis and the key.
std::string summary_csv(const std::vector<Row>& rows, const std::vector<std::string>& axes) {
  std::string csv = kSummaryHeader;
  for (const auto& a : axes) csv += "," + csv_field(a);
  csv += ",cell_key\n";
  for (const auto& row : rows) {
    const PlannedCell& c = row.plan;
    csv += fmt::format("{},{},{},{},", csv_field(c.model), csv_field(c.hw), csv_field(c.strategy), row.status);
    csv += summary_figures_csv(row.r, row.vs, row.status == "ok");
    csv += csv_field(row.error);
    for (const auto& a : axes) {
      std::string v;
      for (const auto& [p, val] : c.axes)
        if (p == a) v = val;
      csv += "," + csv_field(v);
    }
    csv += "," + c.key + "\n";
  }
  return csv;
}

/// summary.json: one object per row (docs/sweep.md).
ordered_json summary_json(const std::vector<Row>& rows) {
  ordered_json j = ordered_json::array();
  for (const auto& row : rows) {
    const PlannedCell& c = row.plan;
    ordered_json e;
    e["model"] = c.model;
    e["model_arg"] = c.model_arg;
    e["hw"] = c.hw;
    e["strategy"] = c.strategy;
    e["status"] = row.status;
    if (row.status == "ok") {
      put_summary_figures(e, row.r, row.vs);
    } else if (!row.error.empty()) {
      e["error"] = row.error;
    }
    ordered_json ax = ordered_json::object();
    for (const auto& [p, v] : c.axes) ax[p] = v;
    e["axes"] = ax;
    e["cell_key"] = c.key;
    e["group_key"] = c.group;
    e["run_dirs"] = row.sources;
    j.push_back(e);
  }
  return j;
}

/// The Markdown (summary.md) and terminal tables of the same rows.
void summary_tables(const std::vector<Row>& rows, std::ostringstream& md, std::ostringstream& txt) {
  md << "| model | hw | strategy | status | DDR read MB | DDR write MB | DDR total MB | x compulsory | latency ms | "
        "cycles | speedup | DDR saved % | MAC util % | DDR BW util % | energy mJ |\n";
  md << "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : rows) {
    const RunSummary& r = row.r;
    const PlannedCell& c = row.plan;
    if (row.status != "ok") {
      std::string what = row.status;
      for (auto& ch : what) ch = char(std::toupper(static_cast<unsigned char>(ch)));
      md << fmt::format("| {} | {} | {} | {}{}{} ||||||||||||\n", c.model, c.hw, c.strategy, row.status,
                        row.error.empty() ? "" : ": ", row.error);
      cells.push_back({c.model, c.hw, c.strategy, what + (row.error.empty() ? "" : ": ") + row.error});
      continue;
    }
    const std::string speed = optional_number(row.vs.speedup, "{:.3f}x"), saved = saved_percent_text(row.vs.saved_pct);
    const std::string energy = optional_number(r.energy_mj, "{:.3f}");
    const std::string over = optional_number(r.ddr_over_compulsory(), "{:.2f}x");
    md << fmt::format(
        "| {} | {} | {} | ok | {:.2f} | {:.2f} | {:.2f} | {} | {:.3f} | {} | {} | {} | {:.1f} | {:.1f} | {} |\n", c.model,
        c.hw, c.strategy, r.ddr_read_mb, r.ddr_write_mb, r.ddr_total_mb(), over, r.latency_ms, r.cycles, speed, saved,
        100 * r.mac_utilisation, 100 * r.ddr_bw_utilisation, energy);
    cells.push_back(summary_text_cells(c.model, c.hw, c.strategy, r, row.vs));
  }
  txt << format_text_table(summary_text_columns(), cells);
}

/// Rows whose labels (model, hw, strategy, axes) are the same but whose cells differ: another
/// config, model file or build under one file name (a preset copied and edited into another
/// folder). The table cannot tell them apart, so a warning names them and the way out.
std::string label_clash_notes(const std::vector<Row>& rows) {
  std::map<std::string, std::vector<const Row*>> by_label;
  for (const auto& row : rows)
    by_label[fmt::format("{} {} {}{}{}", row.plan.model, row.plan.hw, row.plan.strategy,
                         row.plan.axes.empty() ? "" : " ", axes_text(row.plan))]
        .push_back(&row);
  std::string notes;
  for (const auto& [label, same] : by_label) {
    if (same.size() < 2) continue;
    std::vector<std::string> keys;
    for (const Row* r : same) keys.push_back(r->plan.key);
    notes += fmt::format("WARNING: {} rows are labelled '{}' but are different cells (keys {}): another config, model "
                         "file or npu build under the same name, or other options (traces, --input-shape, "
                         "--dynamic-size, --npu-only, --dropout-as-identity, --verify data); tell them apart by summary.csv's cell_key, or "
                         "rename one config or model file and run it again\n",
                         same.size(), label, fmt::join(keys, ", "));
  }
  return notes;
}

/// The lines under the tables: host placement (never silent, as in the experiment summary),
/// the status counts, and warnings for missing (the first 20 listed) and conflicting cells.
std::string status_notes(const std::vector<Row>& rows, const ReportCounts& n, const std::vector<std::string>& dirs) {
  std::string notes;
  for (const auto& row : rows) {
    const RunSummary& r = row.r;
    if (row.status != "ok" || r.host_nodes == 0) continue;
    notes += fmt::format("host: {} {} {}: {} node(s) on the host, {:.2f} % of MACs, {:.1f} % of latency{}\n", row.plan.model,
                         row.plan.hw, row.plan.strategy, r.host_nodes, 100 * r.host_mac_share, 100 * r.host_time_share,
                         r.host_mac_share > 0.01 ? " (warning: more than 1 % of MACs)" : "");
  }
  std::vector<const RunSummary*> ok_runs;  // the compile: lines, as under the experiment's table
  for (const auto& row : rows)
    if (row.status == "ok") ok_runs.push_back(&row.r);
  notes += compile_warning_lines(ok_runs, [](const RunSummary& r) { return stem_of(r.job.model); });
  std::vector<AxisCell> swept;
  for (const auto& row : rows)
    if (row.status == "ok" && !row.plan.axes.empty())
      swept.push_back({row.plan.model, row.plan.strategy, row.plan.axes, row.r.latency_ms, row.r.ddr_total_mb()});
  notes += resource_step_lines(swept);
  notes += fmt::format("{} cells: {} ok, {} failed, {} invalid, {} missing, {} conflicting\n", n.cells, n.ok, n.failed,
                       n.invalid, n.missing, n.conflicts);
  if (n.missing) {
    notes += fmt::format("WARNING: {} cells missing (planned, no result in {}): status 'missing' in summary.csv/json\n",
                         n.missing, fmt::join(dirs, ", "));
    std::size_t listed = 0;
    for (const auto& row : rows)
      if (row.status == "missing" && listed++ < 20)
        notes += fmt::format("  missing: {} {} {}{}{} (key {})\n", row.plan.model, row.plan.hw, row.plan.strategy,
                             row.plan.axes.empty() ? "" : " ", axes_text(row.plan), row.plan.key);
    if (listed > 20) notes += fmt::format("  ... and {} more\n", listed - 20);
  }
  if (n.conflicts) notes += fmt::format("WARNING: {} cells have conflicting results (status 'conflict')\n", n.conflicts);
  return notes + label_clash_notes(rows);
}

}  // namespace

ReportResult write_report(const std::vector<std::string>& dirs, const std::string& out_dir) {
  if (dirs.empty()) throw ConfigError("npu report: error: no folder given\n  give one or more experiment or sweep folders");
  std::vector<std::string> axes;
  std::vector<Row> rows = merged_rows(dirs, axes);
  const ReportCounts n = compare_and_count(rows);

  create_output_folder(out_dir);  // names a file in the way, an empty --out, the system's reason

  std::ostringstream md, txt;
  summary_tables(rows, md, txt);
  const std::string notes = status_notes(rows, n, dirs);
  md << "\n" << notes;
  txt << "\n" << notes;
  std::vector<const RunSummary*> ok_runs;
  for (const Row& row : rows)
    if (row.status == "ok") ok_runs.push_back(&row.r);
  const std::string slower = fusion_regression_lines(ok_runs);
  md << (slower.empty() ? "" : "\n") << slower;
  txt << (slower.empty() ? "" : "\n") << slower;

  write_file_atomic((fs::path(out_dir) / "summary.csv").string(), summary_csv(rows, axes));
  write_file_atomic((fs::path(out_dir) / "summary.json").string(), summary_json(rows).dump(2) + "\n");
  write_file_atomic((fs::path(out_dir) / "summary.md").string(), md.str());
  return {n, txt.str()};
}

}  // namespace npu::sim
