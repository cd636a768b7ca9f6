// hw_config_to_yaml: a resolved config written back as YAML that loads to the same config,
// one writer per group of sections, keys in the order of docs/config.md.
#include <string>
#include <utility>

#include <fmt/format.h>

#include "hw_config_schema.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu {
namespace {

/// Shortest text that reads back as the same double (fmt's "{}" is round-trip exact).
std::string num(double v) { return fmt::format("{}", v); }

/// A YAML double-quoted scalar (JSON escaping is valid YAML).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(ch));
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

/// The text being written, one line at a time.
struct YamlLines {
  std::string text;
  void line(const std::string& s) {
    text += s;
    text += '\n';
  }
};

// The LLM keys only when set away from their defaults: a config without them writes the
// same text as before they existed (experiment cells are keyed by this text).
void write_llm_keys(YamlLines& y, const MacArrayConfig& m) {
  const MacArrayConfig d;
  if (m.gemv_mapping != d.gemv_mapping) y.line(fmt::format("  gemv_mapping: {}", to_string(m.gemv_mapping)));
  if (m.gemv_max_m != d.gemv_max_m) y.line(fmt::format("  gemv_max_m: {}", m.gemv_max_m));
  if (m.weight_dtype != d.weight_dtype) y.line(fmt::format("  weight_dtype: {}", to_string(m.weight_dtype)));
  if (m.weight_dtype == WeightDType::Int4) y.line(fmt::format("  weight_group: {}", m.weight_group));
  if (m.kv_cache_dtype != d.kv_cache_dtype) y.line(fmt::format("  kv_cache_dtype: {}", to_string(m.kv_cache_dtype)));
}

void write_npu_mac_array_sram(YamlLines& y, const HwConfig& c) {
  y.line("npu:");
  y.line("  name: " + quoted(c.npu.name));
  y.line("  clock_mhz: " + num(c.npu.clock_mhz));
  y.line("mac_array:");
  y.line(fmt::format("  rows: {}", c.mac_array.rows));
  y.line(fmt::format("  cols: {}", c.mac_array.cols));
  y.line(fmt::format("  dataflow: {}", to_string(c.mac_array.dataflow)));
  y.line(fmt::format("  dtype: {}", to_string(c.mac_array.dtype)));
  y.line(fmt::format("  macs_per_pe_per_cycle: {}", c.mac_array.macs_per_pe_per_cycle));
  y.line(fmt::format("  depthwise_mapping: {}", to_string(c.mac_array.depthwise_mapping)));
  write_llm_keys(y, c.mac_array);
  // Written only when set, so that a config without them prints as it always did.
  if (c.mac_array.conv_mapping != ConvMapping::Im2col)
    y.line(fmt::format("  conv_mapping: {}", to_string(c.mac_array.conv_mapping)));
  if (c.mac_array.weight_preload != WeightPreload::None)
    y.line(fmt::format("  weight_preload: {}", to_string(c.mac_array.weight_preload)));
  y.line("sram:");
  y.line(fmt::format("  capacity: {}  # bytes", c.sram.capacity_bytes));
  y.line(fmt::format("  banks: {}", c.sram.banks));
  y.line(fmt::format("  bytes_per_cycle: {}", c.sram.bytes_per_cycle));
  y.line(fmt::format("  latency_cycles: {}", c.sram.latency_cycles));
  y.line(fmt::format("  bank_interleave_bytes: {}", c.sram.bank_interleave_bytes));
}

void write_act_unit_dma(YamlLines& y, const HwConfig& c) {
  y.line("act_unit:");
  y.line(fmt::format("  lanes: {}", c.act_unit.lanes));
  y.line("  latency_cycles:");
  y.line(fmt::format("    default: {}", c.act_unit.default_latency_cycles));
  for (const auto& op : detail::act_latency_keys()) {  // fixed order, not map order
    auto it = c.act_unit.op_latency_cycles.find(op);
    if (it != c.act_unit.op_latency_cycles.end()) y.line(fmt::format("    {}: {}", op, it->second));
  }
  y.line("dma:");
  y.line(fmt::format("  burst_bytes: {}", c.dma.burst_bytes));
  // 0 = derived (Little's law / one port per channel): leave the key out so that a reload
  // derives it again from the (possibly edited) DDR and SRAM sections.
  if (c.dma.max_outstanding > 0)
    y.line(fmt::format("  max_outstanding: {}", c.dma.max_outstanding));
  else
    y.line("  # max_outstanding: derived per DDR channel by Little's law (docs/timing.md, \"DMA\")");
  if (c.dma.requests_per_cycle > 0)
    y.line(fmt::format("  requests_per_cycle: {}", c.dma.requests_per_cycle));
  else
    y.line("  # requests_per_cycle: derived, = ddr.channels");
}

void write_ddr(YamlLines& y, const DdrConfig& d) {
  y.line("ddr:");
  y.line("  standard: " + d.standard);
  y.line(fmt::format("  data_rate_mtps: {}", d.data_rate_mtps));
  y.line(fmt::format("  channels: {}", d.channels));
  y.line(fmt::format("  ranks: {}", d.ranks));
  y.line(fmt::format("  bank_groups: {}", d.bank_groups));
  y.line(fmt::format("  banks_per_group: {}", d.banks_per_group));
  y.line(fmt::format("  rows: {}", d.rows));
  y.line(fmt::format("  columns: {}", d.columns));
  y.line(fmt::format("  device_width: {}", d.device_width));
  y.line(fmt::format("  bus_width_bits: {}", d.bus_width_bits));
  y.line(fmt::format("  burst_length: {}", d.burst_length));
  y.line("  address_mapping: " + d.address_mapping);
  y.line(fmt::format("  page_policy: {}", to_string(d.page_policy)));
  y.line(fmt::format("  queue_depth: {}", d.queue_depth));
  y.line(fmt::format("  write_high_watermark: {}", d.write_high_watermark));
  if (d.write_low_watermark > 0)
    y.line(fmt::format("  write_low_watermark: {}", d.write_low_watermark));
  else  // queue_depth < 4 or high = 1: the derived low mark is 0, which the key itself does not accept
    y.line("  # write_low_watermark: 0 (derived: min(queue_depth / 4, write_high_watermark - 1))");
  const DdrTimingCk& t = d.timing;
  y.line("  timing:  # DRAM clocks (tCK)");
  const std::pair<const char*, int> timings[] = {
      {"CL", t.cl},         {"CWL", t.cwl},       {"tRCD", t.t_rcd},    {"tRP", t.t_rp},      {"tRAS", t.t_ras},
      {"tRC", t.t_rc},      {"tCCD_S", t.t_ccd_s}, {"tCCD_L", t.t_ccd_l}, {"tRRD_S", t.t_rrd_s}, {"tRRD_L", t.t_rrd_l},
      {"tFAW", t.t_faw},    {"tWR", t.t_wr},      {"tWTR_S", t.t_wtr_s}, {"tWTR_L", t.t_wtr_l}, {"tRTP", t.t_rtp},
      {"tRFC", t.t_rfc},    {"tREFI", t.t_refi},  {"tRTRS", t.t_rtrs}};
  for (const auto& [name, v] : timings) y.line(fmt::format("    {}: {}", name, v));
}

void write_energy_host(YamlLines& y, const HwConfig& c) {
  if (c.energy.present) {
    y.line("energy:");
    y.line("  pj_per_mac: " + num(c.energy.pj_per_mac));
    y.line("  pj_per_sram_byte: " + num(c.energy.pj_per_sram_byte));
    y.line("  pj_per_ddr_byte: " + num(c.energy.pj_per_ddr_byte));
  }
  y.line("host:");
  y.line("  bandwidth_gbps: " + num(c.host.bandwidth_gbps));
  y.line("  gops: " + num(c.host.gops));
}

void write_accumulator_memory(YamlLines& y, const HwConfig& c) {
  if (c.accumulator.present) {
    y.line("accumulator:");
    y.line(fmt::format("  capacity: {}", c.accumulator.capacity_bytes));
    y.line(fmt::format("  bytes_per_element: {}", c.accumulator.bytes_per_element));
  }
  if (c.memory.present) {
    y.line("memory:");
    y.line(fmt::format("  model: {}", to_string(c.memory.model)));
    if (c.memory.model == MemoryModel::Fixed) {
      y.line("  latency_ns: " + num(c.memory.latency_ns));
      y.line("  bandwidth_gbps: " + num(c.memory.bandwidth_gbps));
    }
  }
}

}  // namespace

std::string hw_config_to_yaml(const HwConfig& c) {
  YamlLines y;
  write_npu_mac_array_sram(y, c);
  write_act_unit_dma(y, c);
  write_ddr(y, c.ddr);
  write_energy_host(y, c);
  write_accumulator_memory(y, c);
  return y.text;
}

}  // namespace npu
