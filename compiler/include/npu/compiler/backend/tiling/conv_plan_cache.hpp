// plan_conv's choices memoised for one compile(): the SRAM-plan ladder tiles every CONV/GEMM
// layer at S, S/2, S/4 ... and plan_conv(C) already weighs the tilings of C/2, C/4 ..., and code
// generation tiles each layer again after program_size_bound did (issue 29 item 4; docs/
// performance.md "The SRAM-plan ladder").
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {

/// A memo of plan_conv(g, sram_bytes, opt), equal to computing it, byte for byte, by
/// construction. A tiling's costs (traffic, burst cost, array cycles, DMA count, estimated
/// time) and its packed layout size depend on the geometry and the tiling options, but not on
/// opt's SRAM capacity, banks and interleave, which only place the buffers (ConvSramLayout's
/// offsets). So per key = every field of `g` and of `opt` but those three (and conv_plans),
/// the cache holds the candidate tilings (tilings_fitting at the largest capacity asked so far;
/// a smaller capacity's candidates are that list filtered, in the same order) and, per
/// capacity C, the index of plan_conv's choice, found from C/2's choice with one more
/// choose_tiling (plan_conv's walk from the smallest capacity up). The plan returned has its
/// layout placed with the caller's opt (conv_sram_layout), as plan_conv's.
///
/// Thread-safe (plan_sizes compiles sizes on several threads): each list is built once, by the
/// first thread that needs it, while the others wait for it. Memory: one list per distinct
/// (layer geometry, options) of the compile (ResNet-50: about 50 lists of at most a few
/// thousand plans); owned by compile(), never global.
class ConvPlanCache {
 public:
  /// list_bytes: the capacity every candidate list is built for (at least the one asked), so
  /// that the largest size's list serves every smaller size whichever size asks first (compile()
  /// gives the configured SRAM, the ladder's largest size). 0: the capacity asked.
  explicit ConvPlanCache(std::uint64_t list_bytes = 0) : list_bytes_(list_bytes) {}

  /// plan_conv(g, sram_bytes, opt) (tiling.hpp): nullopt when not even the minimal tile fits.
  /// Throws nothing but std::bad_alloc.
  std::optional<ConvTilePlan> plan(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt);

  /// plan_conv_split(g, sram_bytes, opt, whole_too) (cin_split.hpp), memoised per key, sram_bytes
  /// and whole_too: which split tilings fit depends on their packed layout size, not on where
  /// the buffers are placed, so the choice is the same and the plan returned has its layout
  /// placed with the caller's opt (conv_split_sram_layout). Code generation tiles every layer
  /// again after planning did, and networks repeat their blocks: ResNet-50's split searches
  /// (each up to |c_in splits| x |c_out splits| x |row splits| tilings) were most of its compile.
  /// Thread-safe; two threads asking for the same key at once may both search (same result).
  std::optional<ConvTilePlan> split(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt,
                                    bool whole_too);

  /// Calls of plan() answered from an existing candidate list, and lists built (tests, docs).
  std::uint64_t hits() const;
  std::uint64_t lists_built() const;

  struct Entry;  // conv_plan_cache.cpp

 private:
  std::uint64_t list_bytes_ = 0;
  mutable std::mutex mutex_;  ///< guards entries_ and splits_
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::map<std::string, std::optional<ConvTilePlan>> splits_;  ///< split()'s choices, by key + sram_bytes + whole_too
  std::atomic<std::uint64_t> hits_{0}, built_{0};
};

/// The key of the memo: every field of `g` and of `opt` that plan_conv's choice and costs
/// read, i.e. all but sram_capacity_bytes, sram_banks, sram_interleave_bytes and conv_plans,
/// as raw bytes (doubles bit for bit). Two keys are equal only when those fields are.
std::string conv_plan_cost_key(const ConvGeom& g, const TilingOptions& opt);

}  // namespace npu::compiler
