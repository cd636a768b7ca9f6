// DDR placement of a program's tensors (codegen.hpp generate, ddr_bank_geometry): first-use
// order, each base moved to its own bank slot.
#include <algorithm>

#include "backend/codegen/ddr_placement.hpp"
#include "backend/codegen/ddr_reuse.hpp"
#include "npu/base/checked_math.hpp"
#include "npu/base/user_text.hpp"

namespace npu::compiler {

namespace {

int ceil_log2(std::uint64_t x) {
  int b = 0;
  while ((std::uint64_t(1) << b) < x) ++b;
  return b;
}

}  // namespace

DdrBankGeometry ddr_bank_geometry(const DdrConfig& ddr) {
  const std::uint64_t row_bytes = std::uint64_t(std::max<std::int64_t>(ddr.columns, 1)) * (ddr.bus_width_bits / 8);
  const int banks = ddr.bank_groups * ddr.banks_per_group;
  DdrBankGeometry fallback{std::max<std::uint64_t>(row_bytes, 64), std::max(banks, 1)};
  const std::string& m = ddr.address_mapping;
  if (m.size() % 2 != 0) return fallback;
  // Fields LSB first with their widths in bits.
  std::vector<std::pair<std::string, int>> fields;
  for (std::size_t i = m.size(); i >= 2; i -= 2) {
    const std::string f = m.substr(i - 2, 2);
    int bits = -1;
    if (f == "co") bits = ceil_log2(row_bytes);
    else if (f == "bg") bits = ceil_log2(std::uint64_t(ddr.bank_groups));
    else if (f == "ba") bits = ceil_log2(std::uint64_t(ddr.banks_per_group));
    else if (f == "ra") bits = ceil_log2(std::uint64_t(ddr.ranks));
    else if (f == "ch") bits = ceil_log2(std::uint64_t(ddr.channels));
    else if (f == "ro") bits = ceil_log2(std::uint64_t(std::max<std::int64_t>(ddr.rows, 1)));
    if (bits < 0) return fallback;
    fields.emplace_back(f, bits);
  }
  int below = 0, lowest = -1, highest = -1;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].first == "ba" || fields[i].first == "bg") {
      if (lowest < 0) lowest = int(i);
      highest = int(i);
    }
  if (lowest < 0) return fallback;
  for (int i = 0; i < lowest; ++i) below += fields[std::size_t(i)].second;
  int span = 0;
  for (int i = lowest; i <= highest; ++i) span += fields[std::size_t(i)].second;
  DdrBankGeometry g;
  g.bank_stride_bytes = std::uint64_t(1) << below;
  g.bank_slots = 1 << std::min(span, 16);
  return g;
}

namespace codegen {

namespace {

/// Lays out `lg.ddr_tensors` in first-use order into `program`; returns the end address.
/// `stagger`: each base also moves to bank slot k % slots (k = tensor index), so that
/// consecutive tensors start in different banks.
std::uint64_t lay_out(const LoweredGraph& lg, const DdrBankGeometry& geo, bool stagger, isa::Program& program,
                      std::map<std::string, std::uint64_t>& bases, const std::map<std::string, std::uint64_t>& stored) {
  const std::uint64_t stride = std::max<std::uint64_t>(geo.bank_stride_bytes, 64);
  const std::uint64_t slots = std::uint64_t(std::max(geo.bank_slots, 1));
  std::uint64_t cursor = 0;
  std::uint64_t k = 0;
  for (const auto& t : lg.ddr_tensors) {
    std::uint64_t base = align_up(cursor, stride);
    if (stagger) {
      const std::uint64_t slot = (base / stride) % slots;
      const std::uint64_t want = k % slots;
      base += ((want + slots - slot) % slots) * stride;
    }
    isa::TensorDecl d;
    d.name = t.name;
    d.kind = t.kind;
    d.ddr_addr = base;
    const auto narrow = stored.find(t.name);  // GEMM weights stored in mac_array.weight_dtype
    d.bytes = narrow != stored.end() ? narrow->second : t.bytes;
    program.tensors.push_back(d);
    bases[t.name] = base;
    cursor = checked_add(base, d.bytes, "error: DDR placement end of tensor '" + echo(t.name) + "' (address + bytes)");
    ++k;
  }
  return cursor;
}

}  // namespace

std::map<std::string, std::uint64_t> place_ddr_tensors(const LoweredGraph& lg, const HwConfig& hw, isa::Program& program) {
  std::map<std::string, std::uint64_t> bases;
  const DdrBankGeometry geo = ddr_bank_geometry(hw.ddr);
  const std::size_t first = program.tensors.size();
  const std::map<std::string, std::uint64_t>& stored = lg.weight_dtype_bytes;  // GEMM weights in weight_dtype
  std::uint64_t cursor = lay_out(lg, geo, true, program, bases, stored);
  const std::uint64_t cap = hw.ddr.capacity_bytes();
  if (cap > 0 && cursor > cap) {
    // The stagger costs up to slots x stride bytes per tensor (4 MiB on hbm2-npu): with the
    // thousands of tensors of a 7B LLM that is gigabytes. When it does not fit, pack the
    // tensors instead (aligned only); every network that fits staggered keeps its layout.
    program.tensors.resize(first);
    bases.clear();
    lay_out(lg, geo, false, program, bases, stored);
  }
  return bases;
}

void check_ddr_lower_bound(const HwConfig& hw, const isa::Program& program) {
  const std::uint64_t cap = hw.ddr.capacity_bytes();
  if (cap == 0) return;
  std::uint64_t fixed = 0, largest = 0;
  for (const auto& t : program.tensors) {
    if (t.kind == isa::TensorKind::Intermediate) largest = std::max(largest, t.bytes);
    else fixed = checked_add(fixed, t.bytes, "error: DDR bytes of the graph inputs, weights and outputs");
  }
  const std::uint64_t need = checked_add(fixed, largest, "error: DDR bytes needed at least");
  if (need <= cap) return;
  throw ConfigError(hw.source + ": error: the network's DDR tensors need at least " + std::to_string(need) +
                    " bytes (graph inputs, weights and outputs " + std::to_string(fixed) +
                    " B, plus the largest intermediate " + std::to_string(largest) +
                    " B, even with intermediate regions reused by lifetime) but the DDR holds " +
                    std::to_string(cap) +
                    " (ddr: channels x ranks x banks x rows x columns x bus bytes); use a larger DDR (ddr.rows, "
                    "ddr.ranks, ddr.channels) or a smaller input: --input-shape for an ONNX model, a shorter "
                    "--prompt / --generate or a smaller --batch for an LLM");
}

void fit_ddr(const HwConfig& hw, isa::Program& program) {
  const std::uint64_t cap = hw.ddr.capacity_bytes();
  std::uint64_t end = 0;
  for (const auto& t : program.tensors) end = std::max(end, t.ddr_addr + t.bytes);
  if (cap == 0 || end <= cap) return;
  const std::uint64_t packed = end;
  end = reuse_ddr_by_lifetime(program, std::max<std::uint64_t>(ddr_bank_geometry(hw.ddr).bank_stride_bytes, 64));
  if (end > cap)
    throw ConfigError(hw.source + ": error: the network's DDR tensors need " + std::to_string(packed) + " bytes (" +
                      std::to_string(end) + " with intermediate regions reused by lifetime) but the DDR holds " +
                      std::to_string(cap) +
                      " (ddr: channels x ranks x banks x rows x columns x bus bytes); use a larger DDR");
}

}  // namespace codegen

}  // namespace npu::compiler
