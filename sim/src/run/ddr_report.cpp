#include "npu/sim/run/ddr_report.hpp"

#include <fmt/format.h>

namespace npu::sim {

std::string describe_ddr_config(const DdrConfig& c) {
  return fmt::format(
      "{}-{}, {} ch x {} rank x {} bg x {} banks, {} rows x {} cols, {}-bit bus, BL{}, {:.2f} GB/s peak, "
      "mapping {}, {} page, queue {}",
      c.standard, c.data_rate_mtps, c.channels, c.ranks, c.bank_groups, c.banks_per_group, c.rows, c.columns,
      c.bus_width_bits, c.burst_length, c.peak_gbps(), c.address_mapping, to_string(c.page_policy), c.queue_depth);
}

std::string format_ddr_stats(const hw::DdrStats& s, double pj_per_ddr_byte) {
  std::string out;
  const std::uint64_t rows = s.row_hits + s.row_misses + s.row_conflicts;
  auto pct = [&](std::uint64_t v) { return rows == 0 ? 0.0 : 100.0 * double(v) / double(rows); };
  out += fmt::format("requests        {} (reads {}, writes {})\n", s.requests(), s.reads, s.writes);
  out += fmt::format("bytes           {} read, {} written\n", s.bytes_read, s.bytes_written);
  out += fmt::format("elapsed         {} tCK = {:.1f} ns\n", s.elapsed_ck(), s.elapsed_ns());
  out += fmt::format("bandwidth       {:.2f} GB/s = {:.1f} % of peak {:.2f} GB/s\n", s.achieved_gbps(),
                     s.percent_of_peak(), s.peak_gbps);
  if (s.reads == 0) {
    out += "read latency    n/a (no reads)\n";  // not "mean 0.0 ns": a write-only trace has no read latency
  } else {
    out += fmt::format("read latency    mean {:.1f} ns ({:.1f} tCK), p50 {:.1f} ns ({} tCK), p99 {:.1f} ns ({} tCK)\n",
                       s.mean_read_latency_ns(), s.mean_read_latency_ck(), s.read_latency_percentile_ns(50),
                       s.read_latency_percentile_ck(50), s.read_latency_percentile_ns(99),
                       s.read_latency_percentile_ck(99));
  }
  out += fmt::format("row buffer      hit rate {:.1f} % (hits {}, misses {} = {:.1f} %, conflicts {} = {:.1f} %)\n",
                     100.0 * s.row_hit_rate(), s.row_hits, s.row_misses, pct(s.row_misses), s.row_conflicts,
                     pct(s.row_conflicts));
  out += fmt::format("commands        ACT {}, PRE {}, RD {}, WR {}, REF {}, auto-precharge {}\n", s.cmd_act, s.cmd_pre,
                     s.cmd_rd, s.cmd_wr, s.cmd_ref, s.auto_precharges);
  if (pj_per_ddr_byte > 0) {
    out += fmt::format("energy          {:.3f} uJ ({} pJ/B)\n", s.energy_pj(pj_per_ddr_byte) * 1e-6, pj_per_ddr_byte);
  }
  return out;
}

nlohmann::json ddr_stats_to_json(const hw::DdrStats& s, const DdrConfig& cfg, double pj_per_ddr_byte) {
  using nlohmann::json;
  json j;
  j["config"] = {{"standard", cfg.standard},
                 {"data_rate_mtps", cfg.data_rate_mtps},
                 {"channels", cfg.channels},
                 {"ranks", cfg.ranks},
                 {"bank_groups", cfg.bank_groups},
                 {"banks_per_group", cfg.banks_per_group},
                 {"address_mapping", cfg.address_mapping},
                 {"page_policy", to_string(cfg.page_policy)},
                 {"queue_depth", cfg.queue_depth},
                 {"tck_ns", cfg.tck_ns()},
                 {"peak_gbps", cfg.peak_gbps()}};
  j["requests"] = s.requests();
  j["reads"] = s.reads;
  j["writes"] = s.writes;
  j["bytes_read"] = s.bytes_read;
  j["bytes_written"] = s.bytes_written;
  j["elapsed_ck"] = s.elapsed_ck();
  j["elapsed_ns"] = s.elapsed_ns();
  j["achieved_gbps"] = s.achieved_gbps();
  j["peak_gbps"] = s.peak_gbps;
  j["percent_of_peak"] = s.percent_of_peak();
  j["read_latency"] = {{"mean_ns", s.mean_read_latency_ns()},
                       {"p50_ns", s.read_latency_percentile_ns(50)},
                       {"p99_ns", s.read_latency_percentile_ns(99)},
                       {"mean_ck", s.mean_read_latency_ck()},
                       {"p50_ck", s.read_latency_percentile_ck(50)},
                       {"p99_ck", s.read_latency_percentile_ck(99)}};
  j["write_latency_mean_ck"] = s.mean_write_latency_ck();
  j["row_buffer"] = {{"hits", s.row_hits},
                     {"misses", s.row_misses},
                     {"conflicts", s.row_conflicts},
                     {"hit_rate", s.row_hit_rate()}};
  j["commands"] = {{"ACT", s.cmd_act}, {"PRE", s.cmd_pre},      {"RD", s.cmd_rd},
                   {"WR", s.cmd_wr},   {"REF", s.cmd_ref},      {"auto_precharge", s.auto_precharges}};
  json banks = json::array();
  for (std::size_t i = 0; i < s.per_bank.size(); ++i) {
    const auto& b = s.per_bank[i];
    int idx = int(i);
    const int bank = idx % cfg.banks_per_group;
    idx /= cfg.banks_per_group;
    const int bg = idx % cfg.bank_groups;
    idx /= cfg.bank_groups;
    const int rank = idx % cfg.ranks;
    const int channel = idx / cfg.ranks;
    banks.push_back({{"channel", channel},
                     {"rank", rank},
                     {"bankgroup", bg},
                     {"bank", bank},
                     {"reads", b.reads},
                     {"writes", b.writes},
                     {"activates", b.activates}});
  }
  j["per_bank"] = banks;
  if (pj_per_ddr_byte > 0) j["energy_pj"] = s.energy_pj(pj_per_ddr_byte);
  return j;
}

}  // namespace npu::sim
