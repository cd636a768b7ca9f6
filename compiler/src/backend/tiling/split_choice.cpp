// The choice between a dense Conv's whole-input-channel plan and its input-channel split
// (cin_split.hpp plan_conv_layer; docs/compiler.md "Input-channel split").
#include <algorithm>

#include <fmt/format.h>

#include "npu/compiler/backend/tiling/cin_split.hpp"
#include "npu/compiler/backend/tiling/latency_first.hpp"

namespace npu::compiler {

namespace {

// A lower bound on any tiling's estimated time (ns): the array cycles of the layer's MACs at
// full occupancy (MACs / (rows x cols x macs_per_pe_per_cycle)) and the DMA time of its
// compulsory bytes (input, weights and output once each, three descriptors), whichever is more.
// Every plan's estimate is max(compute, memory) + more (plan_estimate_ns).
double estimate_lower_bound_ns(const ConvGeom& g, const TilingOptions& opt) {
  const double macs = double(g.c_out) * g.c_in * g.kh * g.kw * double(g.h_out) * g.w_out;
  const double per_cycle = double(opt.array.rows) * opt.array.cols * std::max(opt.array.macs_per_pe_per_cycle, 1);
  const double compute_ns = macs / per_cycle * opt.core_period_ns;
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const std::uint64_t bytes = (std::uint64_t(g.c_in) * g.h_in * g.w_in + std::uint64_t(g.c_out) * g.c_in * g.kh * g.kw +
                               std::uint64_t(g.c_out) * g.h_out * g.w_out) * e;
  return std::max(compute_ns, dma_estimate_ns(opt, bytes, 3));
}

}  // namespace

std::optional<ConvTilePlan> plan_conv_layer(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt,
                                            bool split_allowed, std::string* why) {
  std::optional<ConvTilePlan> plan = plan_conv(g, sram_bytes, opt);
  if (!split_allowed || !opt.cin_split || !cin_split_applies(g)) return plan;
  if (!plan) return plan_conv_split(g, sram_bytes, opt);
  // The split competes only by estimated time, and can be no faster than the lower bound: skip
  // its search where the whole-input-channel plan is already within the margin of that bound.
  if (!opt.time_based() ||
      plan->estimated_ns < kSplitSpeedup * estimate_lower_bound_ns(g, opt))
    return plan;
  std::optional<ConvTilePlan> split = plan_conv_split(g, sram_bytes, opt);
  if (!split || split->estimated_ns * kSplitSpeedup > plan->estimated_ns) return plan;
  if (why)
    *why = fmt::format("estimated {:.1f} us split against {:.1f} us for the best whole-input-channel tile {} "
                       "({:.2f}x faster, at least {:.2f}x takes the split); DDR burst bytes {} against {}",
                       split->estimated_ns / 1e3, plan->estimated_ns / 1e3, plan->describe(g),
                       plan->estimated_ns / split->estimated_ns, kSplitSpeedup,
                       split->burst_cost_bytes, plan->burst_cost_bytes);
  return split;
}

}  // namespace npu::compiler
