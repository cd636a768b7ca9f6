// mac_array.gemv_mapping end to end on the shared GPT-2 decode export (every MatMul M = 1):
// the compiler's per-layer array cycles and the MAC array's tile costs come from the one
// formula (isa/cost/gemv_mapping.hpp), --explain names each GEMV's mapping, and `auto` never
// costs more than the array's weight-stationary dataflow (it is one of the candidates).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw/mac_array/mac_array_timing.hpp"
#include "shared_data.hpp"

namespace npu {
namespace {

struct Decode {
  std::map<std::string, double> report;     ///< compute_ns of gemm layers (1 ns = 1 cycle at 1 GHz)
  std::map<std::string, std::uint64_t> hw;  ///< the MAC array's cycles of the layer's GEMM tiles
  std::vector<compiler::Decision> gemv;     ///< the gemv-mapping decisions
};

Decode gpt2_decode_on_edge(GemvMapping mapping) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.mac_array.gemv_mapping = mapping;
  const std::string model = test::shared_path("models") + "/llm/gpt2_tiny-decode.onnx";
  const auto r = compiler::compile(compiler::load_model(model), hw, compiler::builtin_strategy("none"));
  Decode out;
  for (const auto& l : r.report.layers)
    if (l.kind == "gemm" && l.placement == "npu") out.report[l.layer] = l.compute_ns;
  for (const auto& in : r.program.instructions)
    if (const auto* g = std::get_if<isa::GemmParams>(&in.params)) out.hw[in.layer] += hw::gemm_tile_cost(*g, hw).array_cycles;
  for (const auto& d : r.decisions)
    if (d.pass == "gemv-mapping") out.gemv.push_back(d);
  return out;
}

TEST(GemvMappingDecode, CompilerAndMacArrayAgreeAndExplainNamesTheMapping) {
  NPU_REQUIRE_SHARED_OR_SKIP(test::shared_path("models") + "/llm");
  const Decode base = gpt2_decode_on_edge(GemvMapping::Dataflow);
  const Decode best = gpt2_decode_on_edge(GemvMapping::Auto);
  ASSERT_FALSE(best.gemv.empty());
  for (const auto& d : base.gemv) {
    EXPECT_EQ(d.outcome, compiler::DecisionOutcome::Declined) << d.label;
    EXPECT_NE(d.reason.find("gemv_mapping: dataflow runs the array's weight_stationary"), std::string::npos) << d.reason;
  }
  for (const auto& d : best.gemv) {
    EXPECT_EQ(d.outcome, compiler::DecisionOutcome::Applied) << d.label;
    EXPECT_EQ(d.verb.rfind("mapped ", 0), 0u) << d.verb;
    EXPECT_NE(d.reason.find("weight_stationary"), std::string::npos) << d.reason;
    EXPECT_NE(d.reason.find("vector_unit"), std::string::npos) << d.reason;
  }
  std::uint64_t base_total = 0, best_total = 0;
  for (const auto& [layer, ns] : best.report) {
    if (!best.hw.count(layer)) continue;  // a layer whose tiles are not GEMM instructions
    EXPECT_DOUBLE_EQ(ns, double(best.hw.at(layer))) << layer;  // compiler == hardware
    ASSERT_TRUE(base.hw.count(layer)) << layer;
    EXPECT_LE(best.hw.at(layer), base.hw.at(layer)) << layer;  // weight_stationary is a candidate
    base_total += base.hw.at(layer);
    best_total += best.hw.at(layer);
  }
  EXPECT_LT(best_total, base_total);  // a GEMV on a 32 x 32 WS array is far from its best mapping
}

}  // namespace
}  // namespace npu
