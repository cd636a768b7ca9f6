#include "npu/compiler/driver/compile_report.hpp"
#include "npu/compiler/backend/lowering/weight_precision.hpp"
#include "npu/base/json_text.hpp"
#include "npu/base/csv.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/cost/dma_time.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace npu::compiler {

namespace {

std::string fmt_double(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

using npu::csv_field;

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

double ratio(const LayerReport& r) {
  return r.compulsory_bytes() ? double(r.planned_bytes()) / double(r.compulsory_bytes()) : 0.0;
}

void set_bound(LayerReport& r) { r.bound = r.compute_ns >= r.memory_ns ? "compute" : "memory"; }

}  // namespace

LayerReport CompileReport::total() const {
  LayerReport t;
  t.layer = "TOTAL";
  t.kind = "total";
  t.placement = "";
  double host_ns = 0;
  for (const auto& l : layers) {
    // Host partitions: their MACs and time count (the whole network's work); their DDR
    // traffic is analytic and stays out of the planned/compulsory bytes (NPU DMA only).
    if (l.placement == "host") {
      t.macs += l.macs;
      host_ns += l.compute_ns;
      continue;
    }
    if (l.placement != "npu") continue;
    t.macs += l.macs;
    t.compulsory_read_bytes += l.compulsory_read_bytes;
    t.compulsory_write_bytes += l.compulsory_write_bytes;
    t.planned_read_bytes += l.planned_read_bytes;
    t.planned_write_bytes += l.planned_write_bytes;
    t.steps += l.steps;
    t.sram_bytes = std::max(t.sram_bytes, l.sram_bytes);
    t.compute_ns += l.compute_ns;
    t.memory_ns += l.memory_ns;
    t.recompute_macs += l.recompute_macs;
  }
  set_bound(t);
  if (host_ns > 0) {
    t.compute_ns += host_ns;
    if (host_ns >= t.compute_ns - host_ns && host_ns >= t.memory_ns) t.bound = "host";
    t.note = "includes the host rows' MACs and time; bytes are the NPU's";
  }
  return t;
}

namespace {

// A host partition's row: its time from the host model (host_cycles), its DDR traffic
// analytic (not simulated), the reason of every node in the note.
LayerReport host_layer_report(const LayerSpec& L, const HwConfig& hw, double core_ns,
                              const std::map<std::string, std::string>& host_reasons) {
  LayerReport r;
  r.layer = L.name;
  r.op = L.op_type;
  r.kind = "host";
  r.placement = "host";
  r.covers = L.covers;
  r.macs = L.host_macs;
  r.tile = "host";
  r.loop_order = "host";
  r.steps = 1;
  r.compute_ns = double(host_cycles(hw, L.host_macs + L.host_ops, L.host_rd_bytes + L.host_wr_bytes)) * core_ns;
  r.bound = "host";
  r.note = "host DDR rd " + std::to_string(L.host_rd_bytes) + " B wr " + std::to_string(L.host_wr_bytes) +
           " B (analytic)";
  if (L.host_unsized)
    r.note += "; " + std::to_string(L.host_unsized) + " tensor(s) sized only at run time are not costed";
  for (const auto& c : L.covers)
    if (auto it = host_reasons.find(c); it != host_reasons.end()) r.note += "; " + it->second;
  return r;
}

// An NPU layer's row: compulsory bytes from the lowered graph, tiles and SRAM from code
// generation, compute time from the array's fold model (CONV/GEMM) or the vector lanes.
LayerReport npu_layer_report(const LoweredGraph& lg, const LayerSpec& L, const LayerCodegenInfo& info,
                             const HwConfig& hw, double core_ns) {
  LayerReport r;
  r.layer = L.name;
  r.op = L.op_type;
  r.kind = to_string(L.kind);
  r.covers = L.covers;
  r.macs = L.macs;
  std::set<std::string> reads(L.inputs.begin(), L.inputs.end());
  if (!L.residual.empty()) reads.insert(L.residual);
  if (!L.in_scale.empty()) reads.insert(L.in_scale);
  if (!L.weight.empty()) reads.insert(L.weight);
  if (!L.glu_gate.empty()) reads.insert(L.glu_gate);  // fuse-swiglu: the gate's weights too
  if (!L.bias.empty()) reads.insert(L.bias);
  if (!L.scale_shift.empty()) reads.insert(L.scale_shift);
  for (const auto& t : reads) r.compulsory_read_bytes += lg.bytes.at(t);
  if (gemm_weights_in_weight_dtype(lg, L, hw.mac_array))  // the weights in weight_dtype (docs/config.md)
    r.compulsory_read_bytes += (gemm_weight_bytes(L, std::uint64_t(L.geom.c_out), hw.mac_array) - lg.bytes.at(L.weight)) *
                               (L.glu_gate.empty() ? 1 : 2);
  // A layout copy reads only the part of its input it moves (a Slice reads its slice).
  if (L.kind == LayerKind::Layout) r.compulsory_read_bytes = L.in_elems * std::uint64_t(lg.act_bytes);
  // An attention reads Q, K and V once each (L.in_elems: parts of one projection output under
  // a QKV split's views), and its mask.
  if (L.kind == LayerKind::Attention && L.in_elems)
    r.compulsory_read_bytes = L.in_elems * std::uint64_t(lg.act_bytes) + (L.residual.empty() ? 0 : lg.bytes.at(L.residual));
  // A causal mask is not data an attention must read: it skips the blocks past the diagonal
  // and reads the mask only where a block crosses it (codegen/attention.cpp).
  if (L.kind == LayerKind::Attention && L.attention.causal_offset >= 0 && !L.residual.empty())
    r.compulsory_read_bytes -= lg.bytes.at(L.residual);
  // A Gather reads its indices and only the rows they select, not the whole table.
  if (L.kind == LayerKind::Gather && !L.scatter) r.compulsory_read_bytes = L.elems * std::uint64_t(lg.act_bytes) + lg.bytes.at(L.inputs[0]);
  // Costed, not computed: the run's timing and traffic are right, its values are not produced
  // (a run with data refuses it, ddr_image.cpp functional_problems).
  if ((L.kind == LayerKind::Layout || L.kind == LayerKind::Resize) && L.layout.empty() && !L.zero_insert &&
      !L.linear_resize())
    r.note = "costed only: an identity pass stands in for " + L.op_type + " (no MOVE lowering for this form), so "
             "a run with data refuses it";
  if (!L.bound_note.empty()) r.note = L.bound_note + "; a run with data refuses it";
  if (L.kind == LayerKind::Copy) {
    for (const auto& t : L.inputs) r.compulsory_write_bytes += lg.bytes.at(t);
  } else {
    r.compulsory_write_bytes = lg.bytes.at(L.output);
  }
  r.tile = info.tile;
  r.loop_order = info.loop_order;
  r.steps = info.steps;
  r.sram_bytes = info.sram_bytes;
  r.stack = info.stack;
  r.band_rows = info.band_rows;
  r.overlap = info.overlap;
  r.weights = info.weights;
  r.recompute_macs = info.recompute_macs;
  if (L.kind == LayerKind::Conv || L.kind == LayerKind::Gemm || L.kind == LayerKind::Attention) {
    // The configured dataflow's fold model over the layer's actual tiles (isa/cost/systolic_fold.hpp);
    // an attention adds its vector-unit passes (codegen/attention.cpp).
    r.compute_ns = double(info.array_cycles) * core_ns;
  } else {
    const double lanes = std::max(hw.act_unit.lanes, 1);
    const double elems = double(std::max(r.compulsory_write_bytes, r.compulsory_read_bytes)) / lg.act_bytes;
    r.compute_ns = elems / lanes * core_ns;
  }
  return r;
}

}  // namespace

CompileReport build_report(const LoweredGraph& lg, const CodegenResult& cg, const HwConfig& hw,
                           const std::string& model, const std::string& strategy) {
  CompileReport rep;
  rep.model = model;
  rep.strategy = strategy;
  rep.hw = config_label(hw);
  const double core_ns = hw.npu.clock_mhz > 0 ? hw.core_period_ns() : 1.0;
  std::map<std::string, std::string> host_reasons;
  for (const auto& h : lg.host_nodes) host_reasons[h.name] = h.op_type + " '" + h.name + "': " + h.reason;
  for (std::size_t i = 0; i < lg.layers.size(); ++i) {
    const LayerSpec& L = lg.layers[i];
    if (L.kind == LayerKind::Host) rep.layers.push_back(host_layer_report(L, hw, core_ns, host_reasons));
    else rep.layers.push_back(npu_layer_report(lg, L, cg.layers.at(i), hw, core_ns));
  }
  set_planned_bytes(rep, cg.program, hw);
  return rep;
}

void set_planned_bytes(CompileReport& report, const isa::Program& program, const HwConfig& hw) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> planned;  // layer -> (read, write)
  // The DMA time of each LOAD and STORE as the simulated DMA + DDR stream it (whole DMA bursts,
  // the achievable rate per engine, first-burst latency; isa/cost/dma_time.hpp). The loads and
  // stores of a layer share the DDR, so their times add.
  const isa::DmaStreamModel dma = isa::dma_stream_model(hw);
  const std::uint64_t burst = std::uint64_t(std::max(1, hw.dma.burst_bytes));
  std::map<std::string, double> dma_ns;
  for (const auto& ins : program.instructions) {
    if (ins.op != isa::Opcode::Load && ins.op != isa::Opcode::Store) continue;
    const auto& desc = std::get<isa::DmaDesc>(ins.params);
    (ins.op == isa::Opcode::Load ? planned[ins.layer].first : planned[ins.layer].second) += desc.bytes();
    dma_ns[ins.layer] += isa::dma_descriptor_ns(dma, isa::ddr_burst_bytes(desc, burst));
  }
  for (LayerReport& r : report.layers) {
    if (r.placement != "npu") continue;
    const auto it = planned.find(r.layer);
    r.planned_read_bytes = it != planned.end() ? it->second.first : 0;
    r.planned_write_bytes = it != planned.end() ? it->second.second : 0;
    const auto t = dma_ns.find(r.layer);
    r.memory_ns = t != dma_ns.end() ? t->second : 0.0;
    set_bound(r);
  }
}

std::string report_csv(const CompileReport& report) {
  std::ostringstream os;
  os << "layer,op,kind,placement,covers,macs,compulsory_read_bytes,compulsory_write_bytes,compulsory_bytes,"
        "planned_read_bytes,planned_write_bytes,planned_bytes,planned_over_compulsory,tile,loop_order,steps,"
        "sram_bytes,compute_ns,memory_ns,bound,note,stack,band_rows,overlap,recompute_macs,weights\n";
  auto row = [&](const LayerReport& r) {
    os << csv_field(r.layer) << ',' << csv_field(r.op) << ',' << r.kind << ',' << r.placement << ','
       << csv_field(join(r.covers, ";")) << ',' << r.macs << ',' << r.compulsory_read_bytes << ','
       << r.compulsory_write_bytes << ',' << r.compulsory_bytes() << ',' << r.planned_read_bytes << ','
       << r.planned_write_bytes << ',' << r.planned_bytes() << ',' << fmt_double(ratio(r), 4) << ','
       << csv_field(r.tile) << ',' << r.loop_order << ',' << r.steps << ',' << r.sram_bytes << ','
       << fmt_double(r.compute_ns, 1) << ',' << fmt_double(r.memory_ns, 1) << ',' << r.bound << ','
       << csv_field(r.note) << ',' << (r.stack >= 0 ? std::to_string(r.stack) : "") << ','
       << (r.stack >= 0 ? std::to_string(r.band_rows) : "") << ',' << r.overlap << ',' << r.recompute_macs << ',' << r.weights << '\n';
  };
  for (const auto& r : report.layers) row(r);
  row(report.total());
  return os.str();
}

namespace {
nlohmann::json layer_json(const LayerReport& r) {
  nlohmann::json j;
  j["layer"] = r.layer;
  j["op"] = r.op;
  j["kind"] = r.kind;
  j["placement"] = r.placement;
  j["covers"] = r.covers;
  j["macs"] = r.macs;
  j["compulsory_read_bytes"] = r.compulsory_read_bytes;
  j["compulsory_write_bytes"] = r.compulsory_write_bytes;
  j["compulsory_bytes"] = r.compulsory_bytes();
  j["planned_read_bytes"] = r.planned_read_bytes;
  j["planned_write_bytes"] = r.planned_write_bytes;
  j["planned_bytes"] = r.planned_bytes();
  j["planned_over_compulsory"] = ratio(r);
  j["tile"] = r.tile;
  j["loop_order"] = r.loop_order;
  j["steps"] = r.steps;
  j["sram_bytes"] = r.sram_bytes;
  j["compute_ns"] = r.compute_ns;
  j["memory_ns"] = r.memory_ns;
  j["bound"] = r.bound;
  j["note"] = r.note;
  j["stack"] = r.stack;
  j["band_rows"] = r.band_rows;
  j["overlap"] = r.overlap;
  j["weights"] = r.weights;
  j["recompute_macs"] = r.recompute_macs;
  return j;
}
}  // namespace

std::string report_json(const CompileReport& report) {
  nlohmann::json j;
  j["model"] = report.model;
  j["strategy"] = report.strategy;
  j["hw"] = report.hw;
  j["layers"] = nlohmann::json::array();
  for (const auto& r : report.layers) j["layers"].push_back(layer_json(r));
  j["total"] = layer_json(report.total());
  return npu::json_dump(j) + "\n";
}

std::string report_text(const CompileReport& report) {
  std::ostringstream os;
  const LayerReport t = report.total();
  os << "model " << report.model << "  strategy " << report.strategy << "  hw " << report.hw << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-40s %-8s %14s %14s %14s %7s  %s\n", "layer", "kind", "MACs", "compulsory B",
                "planned B", "ratio", "tile / order / bound");
  os << line;
  for (const auto& r : report.layers) {
    if (r.placement == "host") {
      std::snprintf(line, sizeof line, "%-40s %-8s %14s %14s %14s %7s  host: %s\n", r.layer.c_str(), r.op.c_str(),
                    "-", "-", "-", "-", r.note.c_str());
    } else {
      std::snprintf(line, sizeof line, "%-40s %-8s %14llu %14llu %14llu %7.3f  %s / %s / %s\n", r.layer.c_str(),
                    r.kind.c_str(), (unsigned long long)r.macs, (unsigned long long)r.compulsory_bytes(),
                    (unsigned long long)r.planned_bytes(), ratio(r), r.tile.c_str(), r.loop_order.c_str(),
                    r.bound.c_str());
    }
    os << line;
  }
  std::snprintf(line, sizeof line, "%-40s %-8s %14llu %14llu %14llu %7.3f  read %llu B, write %llu B\n", "TOTAL", "",
                (unsigned long long)t.macs, (unsigned long long)t.compulsory_bytes(),
                (unsigned long long)t.planned_bytes(), ratio(t), (unsigned long long)t.planned_read_bytes,
                (unsigned long long)t.planned_write_bytes);
  os << line;
  return os.str();
}

}  // namespace npu::compiler
