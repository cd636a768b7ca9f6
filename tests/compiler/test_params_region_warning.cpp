// A CONV/GEMM whose params region (8 B reserved per output channel, held for the whole layer:
// docs/compiler.md "SRAM layout") takes a quarter of the SRAM or more and leaves its tiles
// narrower than the array is said: a warning and the layer's note (the LM head of llama-3.2-1b on the edge preset ran 4-column tiles silently).
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

constexpr std::uint64_t kParamsKiB = 1024;

CompileResult compile_wide_head(std::uint64_t sram_bytes, std::int64_t c_in = 1024) {
  // [1, c_in, 2, 2] -> global pool -> Gemm to 4,096 outputs: params 8 B x 4,096 = 32,768 B;
  // each output column's weights are c_in elements.
  testing::GraphBuilder b("wide");
  b.output(b.global_avg_pool_flatten_gemm("head", b.input("x", {1, c_in, 2, 2}), 4096));
  CompileOptions one;
  one.smaller_sram_plans = false;
  return compile(b.g, testing::edge_like_hw(sram_bytes), builtin_strategy("none"), one);
}

std::string warning_for(const CompileResult& r, const std::string& layer) {
  for (const std::string& w : r.warnings)
    if (w.find("layer '" + layer + "'") != std::string::npos) return w;
  return {};
}

TEST(ParamsRegionWarning, AQuarterOfTheSramOrMoreIsSaidWithTheBytesAndTheShare) {
  // 64 KiB: 32,768 B of params are 50 % of 65,536 B.
  const CompileResult r = compile_wide_head(64 * kParamsKiB);
  const std::string w = warning_for(r, "head.fc");
  EXPECT_NE(w.find("warning: layer 'head.fc' (Gemm): its params region (32768 B: 8 B for each of its 4096 output "
                   "channels"),
            std::string::npos)
      << w;
  // What is left for the tile: 65,536 - 32,768 (params) - 1,024 (the input row) = 31,744 B, at
  // 2 x 1,024 B per output column (its int8 weights, two slots): 15 columns (15.5, less the
  // output bytes) of the array's 32.
  EXPECT_NE(w.find("takes 50 % of the 64 KiB SRAM, and its tiles get what is left (15co x 1r x 1w"), std::string::npos)
      << w;
  EXPECT_NE(w.find("15 of the 32 array columns"), std::string::npos) << w;
  bool noted = false;
  for (const auto& l : r.report.layers) noted = noted || (l.layer == "head.fc" && l.note.find("32768 B") != std::string::npos);
  EXPECT_TRUE(noted);
}

TEST(ParamsRegionWarning, BelowAQuarterOrWithTilesAsWideAsTheArrayNothingIsSaid) {
  // 256 KiB: 32,768 B are 12.5 % of 262,144 B.
  EXPECT_EQ(warning_for(compile_wide_head(256 * kParamsKiB), "head.fc"), "");
  // 128 KiB: exactly 25 %, but (131,072 - 32,768 - 1,024) / 2,048 = 47 columns fit, more than the
  // array's 32: the tiles are not crowded.
  EXPECT_EQ(warning_for(compile_wide_head(128 * kParamsKiB), "head.fc"), "");
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

std::string gemv_reason(const CompileResult& r, const std::string& layer) {
  for (const Decision& d : r.decisions)
    if (d.pass == "gemv-mapping" && d.label.rfind(layer + " (", 0) == 0) return d.reason;
  return "(no gemv-mapping decision)";
}

TEST(ParamsRegionWarning, TheGemvMappingLineSaysTheTilesAreNarrowerThanItsCyclesAssume) {
  // The head (M = 1, a GEMV) at 64 KiB runs 15-column tiles (above); the mapping's cycles are
  // the whole GEMM's with tiles as wide as the array, so its --explain line says so (the
  // llama-3.2-1b head on the edge preset printed 24.4 M cycles and simulated 195 M).
  const std::string narrow = gemv_reason(compile_wide_head(64 * kParamsKiB), "head.fc");
  EXPECT_NE(narrow.find("these cycles assume output tiles as wide as the array; this layer runs 15co x 1r x 1w"),
            std::string::npos)
      << narrow;
  EXPECT_NE(narrow.find("(15 of 32 columns)"), std::string::npos) << narrow;
  // At 1 MiB the tiles are 32 columns or more wide: no note.
  const std::string wide = gemv_reason(compile_wide_head(1024 * kParamsKiB), "head.fc");
  EXPECT_EQ(wide.find("these cycles assume"), std::string::npos) << wide;
  EXPECT_NE(wide.find("cycles: weight_stationary"), std::string::npos) << wide;
}

}  // namespace
}  // namespace npu::compiler
