#include "npu/sim/run/run_stats.hpp"

#include <sstream>

#include "npu/sim/io/output_files.hpp"
#include "npu/base/json_text.hpp"

#include <fmt/format.h>

#include <fstream>

#include "npu/hw_config/hw_config.hpp"
#include "npu/base/csv.hpp"

namespace npu::sim {

namespace {
const char* kKindNames[kNumTensorKinds] = {"input", "weight", "output", "intermediate", "kv_cache"};

nlohmann::ordered_json traffic_json(const Traffic& t) {
  nlohmann::ordered_json j;
  j["read_bytes"] = t.read_bytes;
  j["write_bytes"] = t.write_bytes;
  j["total_bytes"] = t.total();
  return j;
}

// Fixed-precision doubles keep run.json byte-identical across runs and platforms.
double round6(double v) { return std::round(v * 1e6) / 1e6; }

using npu::csv_field;

std::string mb_text(std::uint64_t bytes) { return fmt::format("{:.6f}", double(bytes) / 1e6); }
}  // namespace

namespace {
// Busy cycles, utilisation and instruction count per unit, keyed by unit name.
nlohmann::ordered_json units_json(const std::vector<UnitStats>& units) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const UnitStats& u : units) {
    j[u.name] = {{"busy_cycles", u.busy_cycles}, {"utilisation", round6(u.utilisation)},
                 {"instructions", u.instructions}};
  }
  return j;
}

// Stall cycles by cause (token waits also per queue: LD, CP, ST).
nlohmann::ordered_json stalls_json(const RunResult& r) {
  return {{"ddr_latency", r.stalls.ddr_latency_cycles},
          {"ddr_bandwidth", r.stalls.ddr_bandwidth_cycles},
          {"token_wait", r.stalls.token_wait_cycles},
          {"token_wait_ld", r.stalls.token_wait_cycles_by_queue[0]},
          {"token_wait_cp", r.stalls.token_wait_cycles_by_queue[1]},
          {"token_wait_st", r.stalls.token_wait_cycles_by_queue[2]},
          {"sram_conflict", r.stalls.sram_conflict_cycles}};
}

// Traffic per tensor kind (input, weight, output, intermediate, kv_cache).
nlohmann::ordered_json by_kind_json(const std::array<Traffic, kNumTensorKinds>& by_kind) {
  nlohmann::ordered_json j;
  for (int k = 0; k < kNumTensorKinds; ++k) j[kKindNames[k]] = traffic_json(by_kind[std::size_t(k)]);
  return j;
}

// The host's share: instructions, cycles, MACs and its analytic DDR traffic.
nlohmann::ordered_json host_json(const RunResult& r) {
  return {{"instructions", r.host.instructions},
          {"cycles", r.host.cycles},
          {"latency_share", round6(r.host.latency_share)},
          {"macs", r.host.macs},
          {"nodes", r.host.nodes},
          {"ddr_read_bytes", r.host.ddr.read_bytes},
          {"ddr_write_bytes", r.host.ddr.write_bytes},
          {"ddr_traffic", "analytic (HOST rd/wr); not simulated, not in ddr"}};
}

// The DDR model's own counters (row hits, latencies), or null without a DDR model.
nlohmann::ordered_json ddr_model_json(const DdrModelStats& d) {
  if (!d.present) return nullptr;
  return {{"requests", d.requests},
          {"bytes_read", d.bytes_read},
          {"bytes_written", d.bytes_written},
          {"row_hits", d.row_hits},
          {"row_misses", d.row_misses},
          {"row_conflicts", d.row_conflicts},
          {"row_hit_rate", round6(d.row_hit_rate)},
          {"achieved_gbps", round6(d.achieved_gbps)},
          {"mean_read_latency_ns", round6(d.mean_read_latency_ns)},
          {"p99_read_latency_ns", round6(d.p99_read_latency_ns)}};
}

// One layer's row of "layers".
nlohmann::ordered_json layer_json(const LayerStats& l) {
  nlohmann::ordered_json lj;
  lj["name"] = l.name;
  lj["start_cycle"] = l.start_cycle;
  lj["end_cycle"] = l.end_cycle;
  lj["exclusive_cycles"] = l.exclusive_cycles;
  lj["cycles"] = l.cycles;
  lj["macs"] = l.macs;
  lj["ddr"] = traffic_json(l.ddr);
  lj["ddr_by_kind"] = by_kind_json(l.ddr_by_kind);
  lj["sram"] = traffic_json(l.sram);
  lj["mac_busy_cycles"] = l.mac_busy_cycles;
  lj["act_busy_cycles"] = l.act_busy_cycles;
  lj["dma_busy_cycles"] = l.dma_busy_cycles;
  lj["host_cycles"] = l.host_cycles;
  lj["host_ddr_read_bytes"] = l.host_ddr.read_bytes;
  lj["host_ddr_write_bytes"] = l.host_ddr.write_bytes;
  lj["mac_utilisation"] = round6(l.mac_utilisation);
  lj["bound"] = l.bound;
  lj["instructions"] = l.instructions;
  return lj;
}

// One instruction's row of "instruction_records".
nlohmann::ordered_json instruction_json(const InstructionStats& i) {
  return {{"index", i.index},
          {"line", i.source_line},
          {"opcode", isa::to_string(i.op)},
          {"unit", i.unit},
          {"layer", i.layer},
          {"tensor", i.tensor},
          {"start_cycle", i.start_cycle},
          {"end_cycle", i.end_cycle},
          {"ddr_bytes", i.ddr_bytes},
          {"sram_bytes", i.sram_bytes},
          {"macs", i.macs},
          {"token_wait_cycles", i.token_wait_cycles},
          {"host_cycles", i.host_cycles},
          {"host_ddr_read_bytes", i.host_read_bytes},
          {"host_ddr_write_bytes", i.host_write_bytes}};
}

// Adds the DDR and SRAM traffic keys, from "ddr" to "sram", in run.json's order.
void add_traffic(nlohmann::ordered_json& j, const RunResult& r) {
  j["ddr"] = traffic_json(r.ddr);
  j["ddr_read_bytes"] = r.ddr.read_bytes;
  j["ddr_write_bytes"] = r.ddr.write_bytes;
  j["compulsory_bytes"] = r.compulsory_bytes;
  j["ddr_over_compulsory"] = round6(r.ddr_over_compulsory);
  j["ddr_by_kind"] = by_kind_json(r.ddr_by_kind);
  nlohmann::ordered_json by_tensor = nlohmann::ordered_json::object();
  for (const auto& [name, t] : r.ddr_by_tensor) by_tensor[name] = traffic_json(t);
  j["ddr_by_tensor"] = by_tensor;
  j["sram"] = traffic_json(r.sram);
}

// Adds "energy" (per component, pJ) and "energy_mj", both null without an energy model.
void add_energy(nlohmann::ordered_json& j, const EnergyStats& e) {
  if (e.present) {
    j["energy"] = {{"mac_pj", round6(e.mac_pj)},
                   {"sram_pj", round6(e.sram_pj)},
                   {"ddr_pj", round6(e.ddr_pj)},
                   {"total_pj", round6(e.total_pj())}};
    j["energy_mj"] = round6(e.total_pj() * 1e-9);
  } else {
    j["energy"] = nullptr;
    j["energy_mj"] = nullptr;
  }
}
}  // namespace

nlohmann::ordered_json to_json(const RunResult& r, bool with_instructions) {
  nlohmann::ordered_json j;
  j["program"] = r.program;
  j["strategy"] = r.strategy;
  j["hw"] = r.hw;
  j["npu_name"] = r.npu_name;
  j["hw_source"] = r.hw_source;
  j["ideal_memory"] = r.ideal_memory;
  j["decoupled"] = r.decoupled;
  j["core_clock_mhz"] = r.core_clock_mhz;
  j["total_cycles"] = r.total_cycles;
  j["total_ns"] = round6(r.total_ns);
  j["latency_ms"] = round6(r.total_ns / 1e6);
  j["instructions"] = r.instruction_count;
  j["units"] = units_json(r.units);
  j["stall_cycles"] = stalls_json(r);
  add_traffic(j, r);
  j["macs"] = r.macs;
  j["peak_macs_per_cycle"] = r.peak_macs_per_cycle;
  j["mac_utilisation"] = round6(r.mac_utilisation);
  j["peak_ddr_gbps"] = round6(r.peak_ddr_gbps);
  j["achieved_ddr_gbps"] = round6(r.achieved_ddr_gbps);
  j["ddr_bw_utilisation"] = round6(r.ddr_bw_utilisation);
  add_energy(j, r.energy);
  j["host"] = host_json(r);
  j["ddr_model"] = ddr_model_json(r.ddr_model);
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const LayerStats& l : r.layers) layers.push_back(layer_json(l));
  j["layers"] = layers;
  if (with_instructions) {
    nlohmann::ordered_json ins = nlohmann::ordered_json::array();
    for (const InstructionStats& i : r.instructions) ins.push_back(instruction_json(i));
    j["instruction_records"] = ins;
  }
  return j;
}

void write_layers_csv(const RunResult& r, const std::string& path) {
  std::ostringstream f;
  f << "layer,start_cycle,end_cycle,cycles,exclusive_cycles,latency_ms,macs,mac_utilisation,ddr_read_mb,ddr_write_mb,ddr_total_mb,"
       "ddr_input_mb,ddr_weight_mb,ddr_output_mb,ddr_intermediate_mb,ddr_kv_cache_mb,sram_mb,mac_busy_cycles,act_busy_cycles,"
       "dma_busy_cycles,bound,host_cycles,host_ddr_read_mb,host_ddr_write_mb\n";
  const double ns_per_cycle = r.core_clock_mhz > 0 ? 1000.0 / r.core_clock_mhz : 0;
  for (const LayerStats& l : r.layers) {
    f << fmt::format("{},{},{},{},{},{:.6f},{},{:.6f},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(l.name),
                     l.start_cycle, l.end_cycle, l.cycles, l.exclusive_cycles, double(l.cycles) * ns_per_cycle / 1e6, l.macs,
                     l.mac_utilisation, mb_text(l.ddr.read_bytes), mb_text(l.ddr.write_bytes), mb_text(l.ddr.total()),
                     mb_text(l.ddr_by_kind[0].total()), mb_text(l.ddr_by_kind[1].total()),
                     mb_text(l.ddr_by_kind[2].total()), mb_text(l.ddr_by_kind[3].total()),
                     mb_text(l.ddr_by_kind[4].total()), mb_text(l.sram.total()), l.mac_busy_cycles, l.act_busy_cycles,
                     l.dma_busy_cycles, l.bound, l.host_cycles, mb_text(l.host_ddr.read_bytes), mb_text(l.host_ddr.write_bytes));
  }
  write_file_atomic(path, f.str());
}

std::string cycles_as_time(std::uint64_t cycles, double clock_mhz) {
  if (!(clock_mhz > 0)) return "? us";
  return fmt::format("{:.3f} us", double(cycles) / clock_mhz);
}

std::string format_summary(const RunResult& r) {
  std::string s;
  s += fmt::format("program {} ({}) on {}{}\n", r.program.empty() ? "-" : r.program,
                   r.strategy.empty() ? "hand-written" : r.strategy, r.hw, r.ideal_memory ? " [ideal memory]" : "");
  s += fmt::format("  total            {} cycles = {} at {} MHz, {} instructions{}\n", r.total_cycles,
                   cycles_as_time(r.total_cycles, r.core_clock_mhz), r.core_clock_mhz, r.instruction_count,
                   r.decoupled ? "" : " (no tokens: strict program order)");
  s += fmt::format("  MACs             {} ({:.1f} % MAC utilisation)\n", r.macs, 100.0 * r.mac_utilisation);
  // Under --ideal-memory, transfers take no time: a share of the DDR's peak (110.7 % in a new
  // user's run) would read as a modelling error, so the line says what bounds it instead.
  const std::string bound = r.ideal_memory
                                ? fmt::format("ideal memory: not bounded by the config's {:.1f} GB/s DDR peak", r.peak_ddr_gbps)
                                : fmt::format("{:.1f} % of {:.1f} GB/s peak", 100.0 * r.ddr_bw_utilisation, r.peak_ddr_gbps);
  s += fmt::format("  DDR              read {:.3f} MB, write {:.3f} MB, {:.2f} GB/s ({})\n", double(r.ddr.read_bytes) / 1e6,
                   double(r.ddr.write_bytes) / 1e6, r.achieved_ddr_gbps, bound);
  for (int k = 0; k < kNumTensorKinds; ++k) {
    const Traffic& t = r.ddr_by_kind[std::size_t(k)];
    if (t.total() == 0) continue;
    s += fmt::format("    {:<14} {:.3f} MB", kKindNames[k], double(t.total()) / 1e6);
    // The KV cache's two directions are what an LLM decode step is judged by: KV read, KV write.
    if (k == int(isa::TensorKind::KvCache))
      s += fmt::format(" (KV read {:.3f} MB, KV write {:.3f} MB)", double(t.read_bytes) / 1e6,
                       double(t.write_bytes) / 1e6);
    s += "\n";
  }
  if (r.compulsory_bytes > 0)
    s += fmt::format("  compulsory       {:.3f} MB (inputs, weights, outputs once): DDR traffic is {:.2f}x that\n",
                     double(r.compulsory_bytes) / 1e6, r.ddr_over_compulsory);
  s += fmt::format("  SRAM             read {:.3f} MB, write {:.3f} MB\n", double(r.sram.read_bytes) / 1e6,
                   double(r.sram.write_bytes) / 1e6);
  if (r.host.instructions > 0)
    s += fmt::format("  host             {} cycles = {:.1f} % of the latency, {} HOST instruction{}, {} nodes, {} "
                     "MACs; host DDR read {:.3f} MB, write {:.3f} MB (analytic, not simulated, not in DDR above)\n",
                     r.host.cycles, 100.0 * r.host.latency_share, r.host.instructions,
                     r.host.instructions == 1 ? "" : "s", r.host.nodes, r.host.macs, double(r.host.ddr.read_bytes) / 1e6,
                     double(r.host.ddr.write_bytes) / 1e6);
  s += "  unit busy        ";
  for (const UnitStats& u : r.units) {
    if (u.name == "host" && u.instructions == 0) continue;  // no HOST: keep the line as it always was
    s += fmt::format("{} {:.1f} %  ", u.name, 100.0 * u.utilisation);
  }
  s += "\n";
  s += fmt::format("  stall cycles     DDR latency {}, DDR bandwidth {}, token wait {}, SRAM conflict {}\n",
                   r.stalls.ddr_latency_cycles, r.stalls.ddr_bandwidth_cycles, r.stalls.token_wait_cycles,
                   r.stalls.sram_conflict_cycles);
  if (r.energy.present) {
    s += fmt::format("  energy           {:.3f} uJ (MAC {:.3f}, SRAM {:.3f}, DDR {:.3f})\n", r.energy.total_pj() * 1e-6,
                     r.energy.mac_pj * 1e-6, r.energy.sram_pj * 1e-6, r.energy.ddr_pj * 1e-6);
  }
  if (r.ddr_model.present) {
    s += fmt::format("  DDR model        {} requests, row hit rate {:.1f} %, mean read latency {:.1f} ns\n",
                     r.ddr_model.requests, 100.0 * r.ddr_model.row_hit_rate, r.ddr_model.mean_read_latency_ns);
  }
  std::size_t w = 5;
  for (const LayerStats& l : r.layers) w = std::max(w, l.name.size());
  // Host columns only when the program has HOST instructions (host DDR is analytic).
  const bool host = r.host.instructions > 0;
  s += fmt::format("\n{:<{}}  {:>12}  {:>14}  {:>6}  {:>10}  {:>10}  {}{}\n", "layer", w, "cycles", "MACs", "util",
                   "DDR rd MB", "DDR wr MB", host ? fmt::format("{:>12}  {:>11}  {:>11}  ", "host cycles",
                                                               "host rd MB", "host wr MB")
                                                 : std::string(),
                   "bound");
  for (const LayerStats& l : r.layers) {
    s += fmt::format("{:<{}}  {:>12}  {:>14}  {:>5.1f}%  {:>10.3f}  {:>10.3f}  {}{}\n", l.name, w, l.cycles, l.macs,
                     100.0 * l.mac_utilisation, double(l.ddr.read_bytes) / 1e6, double(l.ddr.write_bytes) / 1e6,
                     host ? fmt::format("{:>12}  {:>11.3f}  {:>11.3f}  ", l.host_cycles,
                                        double(l.host_ddr.read_bytes) / 1e6, double(l.host_ddr.write_bytes) / 1e6)
                          : std::string(),
                     l.bound);
  }
  return s;
}

}  // namespace npu::sim
