#include "npu/sim/experiment/summary_figures.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace npu::sim {

const char* const kSummaryHeader =
    "model,hw,strategy,status,ddr_read_mb,ddr_write_mb,ddr_total_mb,compulsory_mb,ddr_over_compulsory,latency_ms,cycles,speedup_vs_none,"
    "ddr_saved_pct,mac_utilisation,ddr_bw_utilisation,energy_mj,host_nodes,host_mac_pct,host_time_pct,plan_sram_bytes,error";

VsNone compare_with_none(const RunSummary& r, const RunSummary* baseline) {
  VsNone vs;
  if (!baseline) return vs;
  if (r.latency_ms > 0) vs.speedup = baseline->latency_ms / r.latency_ms;
  if (baseline->ddr_total_mb() > 0) vs.saved_pct = 100.0 * (1.0 - r.ddr_total_mb() / baseline->ddr_total_mb());
  return vs;
}

std::string optional_number(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string();
}

std::string saved_percent_text(const std::optional<double>& v) {
  if (!v) return "";
  const double x = *v;
  if (x == 0 || std::fabs(x) >= 0.05) return fmt::format("{:.1f} %", x);
  if (std::fabs(x) >= 0.0005) return fmt::format("{:.3f} %", x);
  return x > 0 ? "<0.001 %" : ">-0.001 %";
}

std::string summary_figures_csv(const RunSummary& r, const VsNone& vs, bool ok) {
  if (!ok) return ",,,,,,,,,,,,,,,,";
  return fmt::format("{:.6f},{:.6f},{:.6f},{},{},{:.6f},{},{},{},{:.6f},{:.6f},{},{},{:.4f},{:.4f},{},", r.ddr_read_mb,
                     r.ddr_write_mb, r.ddr_total_mb(), optional_number(r.compulsory_mb, "{:.6f}"),
                     optional_number(r.ddr_over_compulsory(), "{:.6f}"), r.latency_ms, r.cycles, optional_number(vs.speedup, "{:.6f}"),
                     optional_number(vs.saved_pct, "{:.4f}"), r.mac_utilisation, r.ddr_bw_utilisation,
                     optional_number(r.energy_mj, "{:.6f}"), r.host_nodes, 100 * r.host_mac_share,
                     100 * r.host_time_share, r.plan_sram_bytes > 0 ? std::to_string(r.plan_sram_bytes) : std::string());
}

std::string bandwidth_lines(const std::vector<RunSummary>& runs) {
  std::string lines;
  std::vector<std::string> seen;
  for (const RunSummary& r : runs) {
    const std::string hw = stem_of(r.job.hw);
    if (!r.ok || r.stream_ddr_gbps <= 0 || r.stream_ddr_gbps >= r.peak_ddr_gbps * (1 - 1e-9)) continue;
    if (std::find(seen.begin(), seen.end(), hw) != seen.end()) continue;
    seen.push_back(hw);
    lines += fmt::format("bandwidth: {}: BW % is of the {:.4g} GB/s peak; one sequential stream (a LOAD in address "
                         "order) reaches at most {:.4g} GB/s with this address mapping (npu config check says why; "
                         "docs/timing.md \"Sequential streams\")\n",
                         hw, r.peak_ddr_gbps, r.stream_ddr_gbps);
  }
  return lines;
}

std::vector<TextColumn> summary_text_columns() {
  std::vector<TextColumn> c = {{"model"}, {"hw"}, {"strategy"}};
  for (const char* head : {"DDR rd MB", "DDR wr MB", "DDR MB", "x comp", "lat ms", "speedup", "DDR saved", "MAC %", "BW %",
                           "energy mJ"})
    c.push_back({head, TextAlign::Right});
  return c;
}

std::string mb_cell(double mb) {
  if (mb > 0 && mb < 0.01) return fmt::format("{:.2g}", mb);  // 4.2 KB: 0.0042, not 0.00
  return fmt::format("{:.2f}", mb);
}

std::vector<std::string> summary_text_cells(const std::string& model, const std::string& hw, const std::string& strategy,
                                            const RunSummary& r, const VsNone& vs) {
  return {model,
          hw,
          strategy,
          mb_cell(r.ddr_read_mb),
          mb_cell(r.ddr_write_mb),
          mb_cell(r.ddr_total_mb()),
          optional_number(r.ddr_over_compulsory(), "{:.2f}x"),
          fmt::format("{:.3f}", r.latency_ms),
          optional_number(vs.speedup, "{:.3f}x"),
          saved_percent_text(vs.saved_pct),
          fmt::format("{:.1f}", 100 * r.mac_utilisation),
          fmt::format("{:.1f}", 100 * r.ddr_bw_utilisation),
          optional_number(r.energy_mj, "{:.3f}")};
}

}  // namespace npu::sim
