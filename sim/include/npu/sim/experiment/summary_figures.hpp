// The figure columns every summary shares (npu experiment's summary and npu report's merged
// one): one header, one CSV format, one set of JSON fields, one comparison with the `none`
// run. Column meanings and units: docs/experiment.md ("summary.csv").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "npu/base/text_table.hpp"
#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {

/// A run compared with the `none` run of its model and hw (or config point): speedup =
/// baseline latency / latency; DDR saved % = 100 x (1 - DDR bytes / baseline DDR bytes).
/// Empty where the run or the baseline has a zero denominator or there is no baseline.
struct VsNone {
  std::optional<double> speedup;
  std::optional<double> saved_pct;
};

/// `r` against `baseline` (nullptr: no baseline, both empty).
VsNone compare_with_none(const RunSummary& r, const RunSummary* baseline);

/// The header from `model` to `error` (no trailing comma or newline).
extern const char* const kSummaryHeader;

/// The 15 figure fields from ddr_read_mb to host_time_pct, each followed by a comma; 15 empty
/// fields for a run that did not succeed (`ok` false).
std::string summary_figures_csv(const RunSummary& r, const VsNone& vs, bool ok);

/// The terminal table's columns, model to energy mJ (docs/experiment.md "The terminal table"),
/// for npu::format_text_table: every summary's text table has them.
std::vector<TextColumn> summary_text_columns();

/// A DDR figure of the terminal table, in MB (10^6 B): 2 decimals, or 2 significant digits
/// below 0.01 MB so that a KB-sized model is not shown as 0.00 (4200 B: "0.0042").
std::string mb_cell(double mb);

/// One successful run's cells in summary_text_columns(), its names as given.
std::vector<std::string> summary_text_cells(const std::string& model, const std::string& hw, const std::string& strategy,
                                            const RunSummary& r, const VsNone& vs);

/// The bandwidth note under the table, one line per config of the runs that has a
/// sequential-stream rate below its peak: "bandwidth: HW: BW % is of the 25.6 GB/s peak; one
/// sequential stream reaches at most 12.8 GB/s (docs/timing.md ...)". "" when none has.
std::string bandwidth_lines(const std::vector<RunSummary>& runs);

/// `v` formatted with `format` ({fmt} syntax), or "" when empty.
std::string optional_number(const std::optional<double>& v, const char* format);
/// "DDR saved" for the tables: one decimal ("48.4 %"), three where one would round a saving
/// or a loss to 0.0 ("-0.021 %": a strategy that moves more bytes is not shown as no change),
/// "<0.001 %" / ">-0.001 %" below that; "" when absent.
std::string saved_percent_text(const std::optional<double>& v);

/// Sets the figure fields (ddr_read_mb ... plan_sram_bytes) of a summary.json row. Json is
/// nlohmann::json or nlohmann::ordered_json.
template <class Json>
void put_summary_figures(Json& e, const RunSummary& r, const VsNone& vs) {
  e["ddr_read_mb"] = r.ddr_read_mb;
  e["ddr_write_mb"] = r.ddr_write_mb;
  e["ddr_total_mb"] = r.ddr_total_mb();
  e["compulsory_mb"] = r.compulsory_mb ? Json(*r.compulsory_mb) : Json(nullptr);
  const std::optional<double> over = r.ddr_over_compulsory();
  e["ddr_over_compulsory"] = over ? Json(*over) : Json(nullptr);
  e["latency_ms"] = r.latency_ms;
  e["cycles"] = r.cycles;
  e["speedup_vs_none"] = vs.speedup ? Json(*vs.speedup) : Json(nullptr);
  e["ddr_saved_pct"] = vs.saved_pct ? Json(*vs.saved_pct) : Json(nullptr);
  e["mac_utilisation"] = r.mac_utilisation;
  e["ddr_bw_utilisation"] = r.ddr_bw_utilisation;
  e["peak_ddr_gbps"] = r.peak_ddr_gbps > 0 ? Json(r.peak_ddr_gbps) : Json(nullptr);
  e["stream_ddr_gbps"] = r.stream_ddr_gbps > 0 ? Json(r.stream_ddr_gbps) : Json(nullptr);
  e["energy_mj"] = r.energy_mj ? Json(*r.energy_mj) : Json(nullptr);
  e["host_nodes"] = r.host_nodes;
  e["host_mac_pct"] = 100 * r.host_mac_share;
  e["host_time_pct"] = 100 * r.host_time_share;
  e["plan_sram_bytes"] = r.plan_sram_bytes > 0 ? Json(r.plan_sram_bytes) : Json(nullptr);
}

}  // namespace npu::sim
