// `npu config check FILE [--json]`: load and validate a hardware config, print it resolved
// (defaults filled in) and the figures derived from it. Formulas: docs/config.md.
//
// Text output is YAML (the resolved config, loadable again) followed by the derived figures
// as YAML comments. --json prints {"source", "config", "derived"} for tools.
// A bad config throws npu::ConfigError; main() prints it on stderr and exits 1.
#include <cmath>
#include "npu/base/json_text.hpp"
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "npu/hw/dma/dma_sizing.hpp"
#include "npu/hw/ddr/channel_interleave.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/cost/ddr_stream.hpp"
#include "npu/sim/run/dma_latency_probe.hpp"

namespace npu::tool {
namespace {

int log2_exact(std::uint64_t v) {
  int b = 0;
  while (v > 1) {
    v >>= 1;
    ++b;
  }
  return b;
}

/// Bit fields of the DDR address, MSB first: (field, width in bits), in the convention of
/// the DDR model's AddressMapper (DRAMSim3's): the column field counts bursts
/// (columns / burst_length) and the implicit lowest field is the byte offset inside one
/// burst (log2 of bus_width_bits / 8 x burst_length).
std::vector<std::pair<std::string, int>> address_fields(const DdrConfig& d) {
  std::vector<std::pair<std::string, int>> out;
  for (std::size_t i = 0; i + 1 < d.address_mapping.size(); i += 2) {
    const std::string f = d.address_mapping.substr(i, 2);
    int bits = 0;
    if (f == "ro") bits = log2_exact(std::uint64_t(d.rows));
    if (f == "ch") bits = log2_exact(std::uint64_t(d.channels));
    if (f == "ra") bits = log2_exact(std::uint64_t(d.ranks));
    if (f == "bg") bits = log2_exact(std::uint64_t(d.bank_groups));
    if (f == "ba") bits = log2_exact(std::uint64_t(d.banks_per_group));
    if (f == "co") bits = log2_exact(std::uint64_t(d.columns / d.burst_length));
    out.emplace_back(f, bits);
  }
  out.emplace_back("offset", log2_exact(std::uint64_t(d.burst_bytes())));
  return out;
}

std::string address_layout(const DdrConfig& d) {
  auto fields = address_fields(d);
  int total = 0;
  for (const auto& f : fields) total += f.second;
  std::string out;
  int hi = total - 1;
  for (const auto& [name, bits] : fields) {
    if (!out.empty()) out += ' ';
    if (bits == 0)
      out += name + "[-]";
    else if (bits == 1)
      out += fmt::format("{}[{}]", name, hi);
    else
      out += fmt::format("{}[{}:{}]", name, hi, hi - bits + 1);
    hi -= bits;
  }
  return out;
}

/// "1 MiB", "16 GiB", or the byte count when it is not a whole binary unit.
std::string binary_size(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{} {}", bytes, units[u]);
}

nlohmann::ordered_json config_json(const HwConfig& c) {
  nlohmann::ordered_json j;
  j["npu"] = {{"name", c.npu.name}, {"clock_mhz", c.npu.clock_mhz}};
  j["mac_array"] = {{"rows", c.mac_array.rows},
                    {"cols", c.mac_array.cols},
                    {"dataflow", to_string(c.mac_array.dataflow)},
                    {"dtype", to_string(c.mac_array.dtype)},
                    {"macs_per_pe_per_cycle", c.mac_array.macs_per_pe_per_cycle},
                    {"depthwise_mapping", to_string(c.mac_array.depthwise_mapping)},
                    {"gemv_mapping", to_string(c.mac_array.gemv_mapping)},
                    {"gemv_max_m", c.mac_array.gemv_max_m},
                    {"weight_dtype", to_string(c.mac_array.weight_dtype)},
                    {"weight_group", c.mac_array.weight_group},
                    {"kv_cache_dtype", to_string(c.mac_array.kv_cache_dtype)}};
  j["sram"] = {{"capacity_bytes", c.sram.capacity_bytes},
               {"banks", c.sram.banks},
               {"bytes_per_cycle", c.sram.bytes_per_cycle},
               {"latency_cycles", c.sram.latency_cycles},
               {"bank_interleave_bytes", c.sram.bank_interleave_bytes}};
  nlohmann::ordered_json lat;
  lat["default"] = c.act_unit.default_latency_cycles;
  for (const auto& [op, v] : c.act_unit.op_latency_cycles) lat[op] = v;  // std::map: sorted, deterministic
  j["act_unit"] = {{"lanes", c.act_unit.lanes}, {"latency_cycles", lat}};
  // 0 = derived (see derived.dma_*): the file leaves the key out.
  j["dma"] = {{"burst_bytes", c.dma.burst_bytes},
              {"max_outstanding", c.dma.max_outstanding},
              {"requests_per_cycle", c.dma.requests_per_cycle}};
  const DdrConfig& d = c.ddr;
  const DdrTimingCk& t = d.timing;
  nlohmann::ordered_json timing = {
      {"CL", t.cl},         {"CWL", t.cwl},        {"tRCD", t.t_rcd},     {"tRP", t.t_rp},
      {"tRAS", t.t_ras},    {"tRC", t.t_rc},       {"tCCD_S", t.t_ccd_s}, {"tCCD_L", t.t_ccd_l},
      {"tRRD_S", t.t_rrd_s}, {"tRRD_L", t.t_rrd_l}, {"tFAW", t.t_faw},     {"tWR", t.t_wr},
      {"tWTR_S", t.t_wtr_s}, {"tWTR_L", t.t_wtr_l}, {"tRTP", t.t_rtp},     {"tRFC", t.t_rfc},
      {"tREFI", t.t_refi},  {"tRTRS", t.t_rtrs}};
  j["ddr"] = {{"standard", d.standard},
              {"data_rate_mtps", d.data_rate_mtps},
              {"channels", d.channels},
              {"ranks", d.ranks},
              {"bank_groups", d.bank_groups},
              {"banks_per_group", d.banks_per_group},
              {"rows", d.rows},
              {"columns", d.columns},
              {"device_width", d.device_width},
              {"bus_width_bits", d.bus_width_bits},
              {"burst_length", d.burst_length},
              {"address_mapping", d.address_mapping},
              {"page_policy", to_string(d.page_policy)},
              {"queue_depth", d.queue_depth},
              {"write_high_watermark", d.write_high_watermark},
              {"write_low_watermark", d.write_low_watermark},
              {"timing_ck", timing}};
  if (c.energy.present)
    j["energy"] = {{"pj_per_mac", c.energy.pj_per_mac},
                   {"pj_per_sram_byte", c.energy.pj_per_sram_byte},
                   {"pj_per_ddr_byte", c.energy.pj_per_ddr_byte}};
  else
    j["energy"] = nullptr;
  j["host"] = {{"bandwidth_gbps", c.host.bandwidth_gbps}, {"gops", c.host.gops}, {"from_file", c.host.present}};
  return j;
}

nlohmann::ordered_json derived_json(const HwConfig& c) {
  nlohmann::ordered_json j;
  j["peak_macs_per_s"] = c.peak_macs_per_s();
  j["peak_ddr_gbps"] = c.ddr.peak_gbps();
  j["machine_balance_macs_per_byte"] = c.machine_balance_macs_per_byte();
  j["sram_bytes"] = c.sram.capacity_bytes;
  j["min_sram_tile_bytes"] = c.min_sram_tile_bytes();
  j["ddr_capacity_bytes"] = c.ddr.capacity_bytes();
  j["ddr_burst_bytes"] = c.ddr.burst_bytes();
  j["tck_ns"] = c.ddr.tck_ns();
  j["core_period_ns"] = c.core_period_ns();
  j["address_bits"] = address_layout(c.ddr);
  const hw::DmaSizing s = hw::dma_sizing(c);
  j["dma_requests_per_cycle"] = s.requests_per_cycle;
  j["dma_outstanding_per_channel"] = s.outstanding_per_channel;
  j["dma_loaded_latency_ns"] = s.loaded_latency_ns;
  j["stream_ddr_gbps"] = isa::sequential_stream_gbps(c);
  j["stream_ddr_reason"] = isa::sequential_stream_reason(c);
  const npu::sim::DmaLatencyProbe probe = npu::sim::probe_loaded_dma_latency(c);
  if (probe.present) {
    j["dma_simulated_latency_ns"] = {{"load_bytes", probe.bytes}, {"mean", probe.mean_read_latency_ns},
                                     {"p99", probe.p99_read_latency_ns}, {"achieved_gbps", probe.achieved_gbps}};
  }
  return j;
}

// The sequential-stream rate beside the peak, and the loaded DMA latency one such stream
// gets in the model beside the unloaded latency Little's law sizes the window with
// (docs/config.md "Derived figures").
void print_stream_and_loaded_latency(const HwConfig& c, const hw::DmaSizing& s) {
  std::cout << fmt::format("#   sequential stream    {:.4g} GB/s of the {:.4g} peak: one LOAD in address order, bound by {} "
                           "(isa::sequential_stream_gbps, docs/timing.md \"Sequential streams\")\n",
                           isa::sequential_stream_gbps(c), c.memory_peak_gbps(), isa::sequential_stream_reason(c));
  const npu::sim::DmaLatencyProbe p = npu::sim::probe_loaded_dma_latency(c);
  if (!p.present) return;
  // One channel: the window's W requests queue behind each other, so by Little's law each
  // spends W x burst / rate in flight (edge: 32 x 64 B / 12.8 GB/s = 160 ns).
  const std::string little =
      c.ddr.channels == 1 && p.achieved_gbps > 0
          ? fmt::format(" ({} in flight: {} x {} B / {:.4g} GB/s = {:.1f} ns by Little's law)", s.outstanding_per_channel,
                        s.outstanding_per_channel, c.dma.burst_bytes, p.achieved_gbps,
                        s.outstanding_per_channel * double(c.dma.burst_bytes) / p.achieved_gbps)
          : std::string();
  std::cout << fmt::format(
      "#   DMA loaded latency   {:.1f} ns mean, p99 {:.1f} ns: simulated, one {} B LOAD at {:.4g} GB/s{}; the window "
      "above is sized with the unloaded {:.6g} ns\n",
      p.mean_read_latency_ns, p.p99_read_latency_ns, p.bytes, p.achieved_gbps, little, s.loaded_latency_ns);
}

void print_text(const HwConfig& c) {
  const auto& m = c.mac_array;
  const auto& d = c.ddr;
  std::cout << "# " << c.source << ": valid; resolved config with defaults filled in\n";
  std::cout << hw_config_to_yaml(c);
  std::cout << "# derived figures (formulas: docs/config.md)\n";
  std::cout << fmt::format("#   peak MAC/s           {:.4g}  = {} x {} PEs x {} MAC x {} MHz\n", c.peak_macs_per_s(),
                           m.rows, m.cols, m.macs_per_pe_per_cycle, c.npu.clock_mhz);
  std::cout << fmt::format("#   peak DDR GB/s        {:.4g}  = {} MT/s x {} B x {} channel(s)\n", d.peak_gbps(),
                           d.data_rate_mtps, d.bus_width_bits / 8, d.channels);
  if (c.memory.model == MemoryModel::Fixed)
    std::cout << fmt::format("#   memory               fixed: {:.6g} ns, {:.4g} GB/s (memory.model fixed: the DMA "
                             "uses this memory; the DDR figures here are of the unused ddr section)\n",
                             c.memory.latency_ns, c.memory.bandwidth_gbps);
  std::cout << fmt::format("#   machine balance      {:.4g} MAC/B  = peak MAC/s / peak memory B/s\n",
                           c.machine_balance_macs_per_byte());
  std::cout << fmt::format("#   SRAM                 {} ({} B); minimal tile {} B\n",
                           binary_size(c.sram.capacity_bytes), c.sram.capacity_bytes, c.min_sram_tile_bytes());
  std::cout << fmt::format("#   DDR capacity         {} ({} B)\n", binary_size(d.capacity_bytes()), d.capacity_bytes());
  std::cout << fmt::format("#   DDR burst            {} B  = {} bits / 8 x BL{}\n", d.burst_bytes(), d.bus_width_bits,
                           d.burst_length);
  std::cout << fmt::format("#   tCK                  {:.6g} ns  = 2000 / {} MT/s\n", d.tck_ns(), d.data_rate_mtps);
  std::cout << fmt::format("#   core period          {:.6g} ns\n", c.core_period_ns());
  std::cout << fmt::format("#   DDR address bits     {}\n", address_layout(d));
  const hw::DmaSizing s = hw::dma_sizing(c);
  std::cout << fmt::format("#   DMA issue width      {} request(s) per core cycle{}\n", s.requests_per_cycle,
                           s.width_derived ? "  = ddr.channels" : "");
  if (s.outstanding_derived)
    std::cout << fmt::format(
        "#   DMA outstanding      {} per channel  = ceil({:.6g} GB/s x {:.6g} ns / {} B) (Little's law, "
        "docs/timing.md)\n",
        s.outstanding_per_channel, s.channel_gbps, s.loaded_latency_ns, c.dma.burst_bytes);
  else
    std::cout << fmt::format("#   DMA outstanding      {} per channel (dma.max_outstanding; Little's law would "
                             "size {:.6g} GB/s x {:.6g} ns)\n",
                             s.outstanding_per_channel, s.channel_gbps, s.loaded_latency_ns);
  print_stream_and_loaded_latency(c, s);
  std::cout << fmt::format("#   host                 {} GMAC/s, {} GB/s{}; 1 MB costs {} core cycles (npu::host_cycles)\n",
                           c.host.gops, c.host.bandwidth_gbps,
                           c.host.present ? "" : " (no host section: the default Cortex-A76-class core)",
                           host_cycles(c, 0, 1000000));
}

void add_config_commands(CLI::App& app) {
  auto* config = app.add_subcommand("config", "Hardware configs: check and print them");
  config->require_subcommand(1);
  auto* check = config->add_subcommand(
      "check", "Validate a YAML hardware config; print it resolved (defaults filled in) and its derived figures");
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  check->add_option("FILE", *file, "hardware config (YAML), e.g. configs/edge-npu-ddr4.yaml")->required();
  check->add_flag("--json", *json, "print {source, config, derived} as JSON instead of text");
  check->callback([file, json]() {
    const HwConfig cfg = load_hw_config(*file);  // throws ConfigError -> exit 1
    // Valid but probably not meant: warnings on stderr (exit 0), and in the JSON.
    std::vector<std::string> warnings;
    if (std::string w = hw::channel_interleave_warning(cfg.ddr, cfg.source); !w.empty()) warnings.push_back(w);
    for (const auto& w : warnings) std::cerr << w << "\n";
    if (*json) {
      nlohmann::ordered_json out;
      out["source"] = cfg.source;
      out["config"] = config_json(cfg);
      out["derived"] = derived_json(cfg);
      out["warnings"] = warnings;
      std::cout << npu::json_dump(out) << "\n";
    } else {
      print_text(cfg);
    }
  });
}

}  // namespace

NPU_COMMAND("config", add_config_commands);

}  // namespace npu::tool
