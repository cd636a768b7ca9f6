// `npu validate gemmini`: per-layer cycles against Gemmini's RTL, the table and the docs section.
#include "npu/sim/validate/gemmini_validation.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"

namespace npu::sim {
namespace {

double pct(std::int64_t a, std::int64_t b) { return b != 0 ? 100.0 * double(a - b) / double(b) : 0.0; }

// Throws ConfigError (naming `where`) when the mapping's [T] sizes are not `layer`'s loops:
// N, C, M, and for a convolution P / Q the output height / width and S / R the kernel height /
// width (1 for a GEMM); and when a convolution's output size does not follow from its input,
// kernel, stride and pad (out = (in + 2 pad - k) / stride + 1). A mapping of another shape
// would cost another layer.
void check_mapping_shape(const RtlLayer& l, const compiler::TileMapping& t, const std::string& where) {
  const compiler::LoopSizes want{l.n, l.c, l.m, l.conv ? l.out_h : 1, l.conv ? l.out_w : 1, l.conv ? l.kh : 1,
                                 l.conv ? l.kw : 1};
  const compiler::LoopSizes& got = t.total;
  if (got.n != want.n || got.c != want.c || got.m != want.m || got.p != want.p || got.q != want.q ||
      got.s != want.s || got.r != want.r)
    throw ConfigError(fmt::format(
        "{}: error: the mapping's [T] N{} C{} M{} P{} Q{} S{} R{} is not layer '{}' (N{} C{} M{} P{} Q{} S{} R{})\n"
        "  give the layer's own loop sizes in [T] (a GEMM: P, Q, S and R are 1)",
        where, got.n, got.c, got.m, got.p, got.q, got.s, got.r, l.name, want.n, want.c, want.m, want.p, want.q,
        want.s, want.r));
  if (!l.conv) return;
  const auto out = [&](std::int64_t in, std::int64_t k) { return (in + 2 * l.pad - k) / l.stride + 1; };
  if (out(l.in_h, l.kh) != l.out_h || out(l.in_w, l.kw) != l.out_w)
    throw ConfigError(fmt::format("{}: error: layer '{}': out_h x out_w {}x{} does not follow from in {}x{}, kernel "
                                  "{}x{}, stride {}, pad {} (expected {}x{})\n  fix the geometry columns",
                                  l.where, l.name, l.out_h, l.out_w, l.in_h, l.in_w, l.kh, l.kw, l.stride, l.pad,
                                  out(l.in_h, l.kh), out(l.in_w, l.kw)));
}

// The mapping each layer runs with: its override, or the ground truth's own. Every layer named
// once, every override naming a layer, and every mapping of the layer's shape and fitting the
// scratchpad and the accumulator (the ground truth's own tiles are checked like an override's).
std::vector<compiler::TileOverride> checked_mappings(const std::vector<RtlLayer>& layers, const HwConfig& hw,
                                                     const std::vector<compiler::TileOverride>& overrides) {
  std::vector<std::string> names;
  std::map<std::string, const compiler::TileOverride*> given;
  for (const RtlLayer& l : layers) {
    if (std::find(names.begin(), names.end(), l.name) != names.end())
      throw ConfigError(fmt::format("{}: error: layer '{}' is listed twice\n  keep one row per layer", l.where, l.name));
    names.push_back(l.name);
  }
  compiler::check_override_layers(overrides, names, "the ground-truth CSV");
  for (const compiler::TileOverride& o : overrides) given[o.layer] = &o;
  std::vector<compiler::TileOverride> out;
  for (const RtlLayer& l : layers) {
    const auto it = given.find(l.name);
    out.push_back(it != given.end() ? *it->second : compiler::TileOverride{l.name, l.mapping, l.where});
    check_mapping_shape(l, out.back().mapping, out.back().where);
    compiler::check_tile_fits(out.back(), int(l.stride), hw);
  }
  return out;
}

}  // namespace

ValidationResult validate_gemmini(const std::vector<RtlLayer>& layers, const HwConfig& hw,
                                  const std::vector<compiler::TileOverride>& overrides) {
  const std::vector<compiler::TileOverride> mappings = checked_mappings(layers, hw, overrides);
  ValidationResult res;
  double sum = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const RtlLayer& l = layers[i];
    const compiler::TileMapping& mapping = mappings[i].mapping;
    ValidationRow row;
    row.layer = l.name;
    row.rtl = l.rtl_cycles;
    row.given = pipeline_cycles(given_tiles(l, mapping, hw), hw);
    row.given_err_pct = pct(row.given, row.rtl);
    if (auto t = tiler_tiles(l, hw, row.tiler_note)) {
      row.tiler = pipeline_cycles(*t, hw);
      row.tiler_vs_given_pct = pct(row.tiler, row.given);
    }
    sum += std::fabs(row.given_err_pct);
    if (std::fabs(row.given_err_pct) >= res.max_abs_err_pct)
      res.max_abs_err_pct = std::fabs(row.given_err_pct), res.max_layer = l.name;
    res.rows.push_back(std::move(row));
  }
  res.mae_pct = res.rows.empty() ? 0 : sum / double(res.rows.size());
  return res;
}

std::string validation_table(const ValidationResult& r) {
  std::size_t w = 5;
  for (const auto& row : r.rows) w = std::max(w, row.layer.size());
  std::string out = fmt::format("{:<{}}  {:>12}  {:>12}  {:>8}  {:>12}  {:>14}\n", "layer", w, "RTL cycles",
                                "given tiles", "error %", "tiler", "tiler/given %");
  for (const auto& row : r.rows) {
    const std::string tiler = row.tiler > 0 ? fmt::format("{}", row.tiler) : "-";
    const std::string vs = row.tiler > 0 ? fmt::format("{:+.1f}", row.tiler_vs_given_pct) : "-";
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>+8.2f}  {:>12}  {:>14}\n", row.layer, w, row.rtl, row.given,
                       row.given_err_pct, tiler, vs);
  }
  for (const auto& row : r.rows)
    if (row.tiler == 0 || row.tiler_vs_given_pct > 10.0) out += fmt::format("  tiler on {}: {}\n", row.layer, row.tiler_note);
  out += fmt::format("given tiles: MAE {:.2f} %, max |error| {:.2f} % ({}), {} layers\n", r.mae_pct,
                     r.max_abs_err_pct, r.max_layer, r.rows.size());
  return out;
}

std::string validation_markdown(const ValidationResult& r, const std::string& config, const std::string& gt) {
  std::string out = fmt::format(
      "Generated by `npu validate gemmini --config {} --gt {} --write-doc docs/validation.md`.\n\n"
      "| layer | RTL cycles | npu-sim, given tiles | error % | npu-sim, own tiler | tiler vs given % |\n"
      "|---|---:|---:|---:|---:|---:|\n",
      config, gt);
  for (const auto& row : r.rows) {
    const std::string tiler = row.tiler > 0 ? fmt::format("{}", row.tiler) : "no fit";
    const std::string vs = row.tiler > 0 ? fmt::format("{:+.1f}", row.tiler_vs_given_pct) : "--";
    out += fmt::format("| {} | {} | {} | {:+.2f} | {} | {} |\n", row.layer, row.rtl, row.given, row.given_err_pct,
                       tiler, vs);
  }
  out += fmt::format("\nGiven tiles: MAE {:.2f} %, max |error| {:.2f} % ({}).\n", r.mae_pct, r.max_abs_err_pct,
                     r.max_layer);
  return out;
}

}  // namespace npu::sim
