// Smaller-SRAM plans as candidates: capacities, figures, comparison (sram_plans.hpp).
#include "npu/compiler/backend/tiling/sram_plans.hpp"
#include "npu/compiler/backend/tiling/latency_first.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/cost/dma_time.hpp"

namespace npu::compiler {

std::vector<std::uint64_t> sram_plan_capacities(const HwConfig& hw) {
  const std::uint64_t s = hw.sram.capacity_bytes;
  const std::uint64_t banks = std::uint64_t(std::max(1, hw.sram.banks));
  const std::uint64_t granule = std::max<std::uint64_t>(1, hw.sram.bank_interleave_bytes);
  std::vector<std::uint64_t> out{s};
  for (std::uint64_t c = s; c % 2 == 0 && c / 2 >= kSmallestSramPlanBytes;) {
    c /= 2;
    if (c % banks != 0 || (c / banks) % granule != 0) break;
    out.push_back(c);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

PlanFigures plan_figures(std::uint64_t sram_bytes, const isa::Program& program, const CompileReport& report,
                         const std::vector<StackSummary>& stacks, double residency_ns, const HwConfig& hw) {
  PlanFigures f;
  f.sram_bytes = sram_bytes;
  const std::uint64_t burst = std::uint64_t(std::max(1, hw.ddr.burst_bytes()));
  // Each layer's DMA time: its LOADs and STOREs one by one at the achievable stream rate, each
  // with its first-burst latency (isa/cost/dma_time.hpp).
  const isa::DmaStreamModel dma = isa::dma_stream_model(hw);
  std::map<std::string, double> layer_ns;
  for (const isa::Instruction& in : program.instructions) {
    if (in.op != isa::Opcode::Load && in.op != isa::Opcode::Store) continue;
    const std::uint64_t n = isa::ddr_burst_bytes(std::get<isa::DmaDesc>(in.params), burst);
    layer_ns[in.layer] += isa::dma_descriptor_ns(dma, n);
    f.ddr_bytes += n;
  }
  for (const LayerReport& l : report.layers) {
    if (l.placement != "npu" || l.stack >= 0) continue;
    const auto b = layer_ns.find(l.layer);
    const double m = b != layer_ns.end() ? b->second : 0.0;
    const double c = l.compute_ns;
    f.estimated_ns += layer_estimate_ns(c, m, l.steps);
  }
  for (const StackSummary& s : stacks) f.estimated_ns += s.estimated_ns;
  f.estimated_ns += residency_ns;
  return f;
}

bool improves_on(const PlanFigures& candidate, const PlanFigures& kept) {
  const double t_kept = kept.estimated_ns;
  // Latency first (latency_first.hpp): at most half the time wins whatever the DDR bytes (a
  // 128 KiB plan whose convs take the input-channel split against a 64 KiB plan without it).
  if (candidate.estimated_ns * kOverCapSpeedup <= t_kept) return true;
  const bool time_lower = candidate.estimated_ns < t_kept * (1.0 - kPlanTimeTie);
  const bool time_tied = !time_lower && candidate.estimated_ns <= t_kept * (1.0 + kPlanTimeTie);
  if (time_tied) return candidate.ddr_bytes < kept.ddr_bytes;
  if (!time_lower) return false;
  const double saved = t_kept > 0 ? (t_kept - candidate.estimated_ns) / t_kept : 0.0;
  const double allowed = double(kept.ddr_bytes) * saved;
  return double(candidate.ddr_bytes) <= double(kept.ddr_bytes) + allowed;
}

std::string plan_comparison(const PlanFigures& candidate, const PlanFigures& kept) {
  const double dt = kept.estimated_ns > 0 ? 100.0 * (kept.estimated_ns - candidate.estimated_ns) / kept.estimated_ns : 0.0;
  const double db = kept.ddr_bytes > 0
                        ? 100.0 * (double(candidate.ddr_bytes) - double(kept.ddr_bytes)) / double(kept.ddr_bytes)
                        : 0.0;
  return fmt::format("{:.3f} % {} estimated time, {:.3f} % {} DDR bytes than the {} plan (burst DDR {} B, estimated {:.3f} us)",
                     std::abs(dt), dt >= 0 ? "less" : "more", std::abs(db), db > 0 ? "more" : "fewer",
                     sram_size_text(kept.sram_bytes), kept.ddr_bytes, kept.estimated_ns / 1000.0);
}

std::string sram_size_text(std::uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string sram_plan_note(std::uint64_t plan_bytes, std::uint64_t capacity_bytes) {
  if (plan_bytes == 0 || plan_bytes >= capacity_bytes) return "";
  return fmt::format("  SRAM plan: compiled for {} of the config's {}: the larger SRAM's plans are not estimated "
                     "better: not faster, or faster only for more extra DDR bytes than allowed (npu compile --explain, sram-plans)\n",
                     sram_size_text(plan_bytes), sram_size_text(capacity_bytes));
}

}  // namespace npu::compiler
