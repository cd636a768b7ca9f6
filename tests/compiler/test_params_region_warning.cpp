// A CONV/GEMM whose params region (8 B reserved per output channel, held for the whole layer:
// docs/compiler.md "SRAM layout") takes a quarter of the SRAM or more is said: a warning and
// the layer's note (the LM head of llama-3.2-1b on the edge preset ran 4-column tiles silently).
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

constexpr std::uint64_t kParamsKiB = 1024;

CompileResult compile_wide_head(std::uint64_t sram_bytes) {
  // [1, 16, 2, 2] -> global pool -> Gemm to 4,096 outputs: params 8 B x 4,096 = 32,768 B.
  testing::GraphBuilder b("wide");
  b.output(b.global_avg_pool_flatten_gemm("head", b.input("x", {1, 16, 2, 2}), 4096));
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
  EXPECT_NE(w.find("takes 50 % of the 64 KiB SRAM"), std::string::npos) << w;
  bool noted = false;
  for (const auto& l : r.report.layers) noted = noted || (l.layer == "head.fc" && l.note.find("32768 B") != std::string::npos);
  EXPECT_TRUE(noted);
}

TEST(ParamsRegionWarning, BelowAQuarterNothingIsSaid) {
  // 256 KiB: 32,768 B are 12.5 % of 262,144 B; 128 KiB: exactly 25 %, said.
  EXPECT_EQ(warning_for(compile_wide_head(256 * kParamsKiB), "head.fc"), "");
  EXPECT_NE(warning_for(compile_wide_head(128 * kParamsKiB), "head.fc").find("takes 25 %"), std::string::npos);
}

}  // namespace
}  // namespace npu::compiler
