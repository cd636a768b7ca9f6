// plan_conv memoised for one compile() (conv_plan_cache.hpp).
#include "npu/compiler/backend/tiling/conv_plan_cache.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend/tiling/tiling_detail.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"

namespace npu::compiler {

// A field added to one of these structs must be added to conv_plan_cost_key below (or, if the
// tiler never reads it, to the list of fields it leaves out); these sizes (x86-64, LP64) make
// the build say so. A field left out of the key that the tiler reads would let two different
// tilings share a memo entry.
static_assert(sizeof(ConvGeom) == 68, "ConvGeom changed: update conv_plan_cost_key");
static_assert(sizeof(MacArrayConfig) == 52, "MacArrayConfig changed: update conv_plan_cost_key");
static_assert(sizeof(isa::DmaStreamModel) == 40, "DmaStreamModel changed: update conv_plan_cost_key");
static_assert(sizeof(TilingOptions) == 296, "TilingOptions changed: update conv_plan_cost_key");

namespace {

struct KeyBytes {
  std::string s;
  template <class T>
  KeyBytes& operator<<(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_class_v<T>, "one scalar field at a time");
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s.append(b, sizeof(T));
    return *this;
  }
};

}  // namespace

std::string conv_plan_cost_key(const ConvGeom& g, const TilingOptions& o) {
  KeyBytes k;
  k.s.reserve(256);
  k << g.c_in << g.h_in << g.w_in << g.c_out << g.h_out << g.w_out << g.kh << g.kw << g.stride_h << g.stride_w
    << g.pad_top << g.pad_left << g.pad_bottom << g.pad_right << g.dilation << g.group << g.gemm << g.b_row_major;
  k << o.act_bytes << o.overlap << o.traffic_weight << o.param_bytes << o.reserved_param_bytes_per_channel
    << o.residual << o.dual_gemm << o.in_scale << o.prologue_param_bytes << o.co_multiple << o.rope_row_bytes
    << o.batch << o.align_bytes << o.max_program_instructions << o.burst_bytes << o.accumulator_bytes
    << o.accumulator_elem_bytes << o.traffic_tolerance << o.target_steps;
  const MacArrayConfig& a = o.array;
  k << a.rows << a.cols << a.dataflow << a.dtype << a.macs_per_pe_per_cycle << a.depthwise_mapping << a.gemv_mapping
    << a.gemv_max_m << a.weight_dtype << a.weight_group << a.kv_cache_dtype << a.conv_mapping << a.weight_preload;
  k << o.vector_lanes << o.core_period_ns << o.ddr_bytes_per_ns << o.stream_bytes_per_ns;
  const isa::DmaStreamModel& d = o.dma;
  k << d.first_burst_ns << d.first_page_gbps << d.first_page_bytes << d.sustained_gbps << d.refresh_factor;
  k << o.weight_group_bytes << o.max_traffic_over_min << o.time_tie_tolerance << o.cin_split << o.conv3d_order;
  // Left out: sram_capacity_bytes, sram_banks, sram_interleave_bytes (they place the buffers:
  // the layout is redone with the caller's options) and conv_plans (this cache).
  return std::move(k.s);
}

/// The candidate tilings of one key (tilings_fitting at built_for, once `built`) and, per
/// capacity, the index of plan_conv's choice among them (-1: none). `mutex` guards the rest.
struct ConvPlanCache::Entry {
  std::uint64_t built_for = 0;  ///< set before the entry is shared
  std::mutex mutex;
  bool built = false;
  std::uint64_t min_bytes = 0;  ///< conv_min_sram_bytes
  std::vector<std::pair<std::uint64_t, ConvTilePlan>> all;
  std::map<std::uint64_t, std::ptrdiff_t> chosen;
};

namespace {

// plan_conv's walk over C, C/2, ... (>= min_bytes, > 0) from the smallest up, memoised: the
// choice at C is C's own choice when it improves on C/2's (conv_plan_improves), else C/2's.
// Needs e.mutex held and c <= e.built_for.
std::ptrdiff_t chosen_at(ConvPlanCache::Entry& e, std::uint64_t c, const TilingOptions& opt) {
  const auto it = e.chosen.find(c);
  if (it != e.chosen.end()) return it->second;
  const std::uint64_t half = c / 2;
  const std::ptrdiff_t prev = half >= e.min_bytes && half > 0 ? chosen_at(e, half, opt) : -1;
  const std::ptrdiff_t own = tiling_detail::plan_conv_in(e.all, c, opt);
  const bool take = own >= 0 && (prev < 0 || tiling_detail::conv_plan_improves(e.all[std::size_t(own)].second,
                                                                               e.all[std::size_t(prev)].second, opt));
  const std::ptrdiff_t r = take ? own : prev;
  e.chosen.emplace(c, r);
  return r;
}

}  // namespace

std::optional<ConvTilePlan> ConvPlanCache::plan(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt) {
  const std::uint64_t min_bytes = conv_min_sram_bytes(g, opt);
  if (sram_bytes == 0 || sram_bytes < min_bytes) return std::nullopt;  // plan_conv: no capacity to walk
  const std::string key = conv_plan_cost_key(g, opt);
  std::shared_ptr<Entry> e;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Entry>& slot = entries_[key];
    if (!slot || slot->built_for < sram_bytes) {  // none yet, or one for smaller sizes only
      slot = std::make_shared<Entry>();
      slot->built_for = std::max(sram_bytes, list_bytes_);
    }
    e = slot;
  }
  ConvTilePlan p;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    if (e->built) {
      ++hits_;
    } else {  // the first thread here builds it; the others wait on the mutex
      e->min_bytes = min_bytes;
      e->all = tiling_detail::tilings_fitting(g, e->built_for, opt);
      e->built = true;
      ++built_;
    }
    const std::ptrdiff_t i = chosen_at(*e, sram_bytes, opt);
    if (i < 0) return std::nullopt;
    p = e->all[std::size_t(i)].second;
  }
  p.sram = conv_sram_layout(g, p.order, p.co_tile, p.rows_tile, opt);  // placed in the caller's SRAM
  return p;
}

std::optional<ConvTilePlan> ConvPlanCache::split(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt,
                                                 bool whole_too) {
  KeyBytes k{conv_plan_cost_key(g, opt)};
  k << sram_bytes << whole_too;
  const std::string& key = k.s;
  std::optional<ConvTilePlan> p;
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = splits_.find(key);
    if (it != splits_.end()) {
      found = true;
      p = it->second;
    }
  }
  if (!found) {
    TilingOptions uncached = opt;
    uncached.conv_plans = nullptr;
    p = plan_conv_split(g, sram_bytes, uncached, whole_too);
    std::lock_guard<std::mutex> lock(mutex_);
    splits_.emplace(key, p);
  }
  if (p) p->sram = conv_split_sram_layout(g, p->co_tile, p->rows_tile, p->ci_tile, opt);  // the caller's SRAM
  return p;
}

std::uint64_t ConvPlanCache::hits() const { return hits_; }

std::uint64_t ConvPlanCache::lists_built() const { return built_; }

}  // namespace npu::compiler
