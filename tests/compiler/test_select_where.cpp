// select-where (issue 28, kind 7): a Where with a constant condition and one constant value,
// the causal mask of Hugging-Face-style exports, runs on the vector unit as x * M + K instead
// of going to the host. tests/data/where_causal_mask.onnx: scripts/make_where_mask_model.py
// (scores 1x2x8x8, scale 0.5, Where(tril, s, float32 min), Softmax on the last axis).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

const std::string kModel = std::string(NPU_SOURCE_DIR) + "/tests/data/where_causal_mask.onnx";

std::vector<std::string> op_types(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op_type + (n.on_host ? "@host" : ""));
  return ops;
}

TEST(SelectWhere, TheCausalMaskRunsOnTheNpuAsAMulAndAnAdd) {
  const Graph g = load_model(kModel);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Mul", "Mul", "Add", "Softmax"}));
  for (const char* s : {"none", "depth-first"}) {
    const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy(s));
    for (const auto& L : r.lowered.layers) EXPECT_NE(L.kind, LayerKind::Host) << s << " " << L.name;
  }
}

TEST(SelectWhere, TheRewrittenGraphComputesWhatTheWhereComputed) {
  // The reference interpreter on the file as written (Where) and on the loaded graph (x*M + K)
  // with the same inputs: equal to the last bit where the mask keeps a score (x*1 + 0 = x) and
  // exactly 0 after the Softmax where it does not (exp(float32 min - max) underflows to 0).
  const Graph written = import_onnx(kModel);
  const Graph loaded = load_model(kModel);
  RefTensor x;
  x.shape = {1, 2, 8, 8};
  for (int i = 0; i < 128; ++i) x.f.push_back(float(std::sin(0.37 * i)) * 3.0f);
  const RefTensor a = run_reference(written, {{"x", x}}).at("y");
  const RefTensor b = run_reference(loaded, {{"x", x}}).at("y");
  ASSERT_EQ(a.f.size(), 128u);
  ASSERT_EQ(b.f.size(), 128u);
  for (std::size_t i = 0; i < 128; ++i) {
    const std::size_t row = (i / 8) % 8, col = i % 8;
    EXPECT_EQ(a.f[i], b.f[i]) << "element " << i;
    if (col > row) {
      EXPECT_EQ(b.f[i], 0.0f) << "masked element " << i;
    }
  }
  for (std::size_t h = 0; h < 2; ++h) EXPECT_EQ(b.f[h * 64], 1.0f) << "row 0 keeps only its first score";
}

TEST(SelectWhere, AConditionKnownOnlyAtRunTimeStaysAsWritten) {
  // The same graph with the mask a graph input: no constant condition to turn into M and K, so
  // the pass leaves the Where (placement then decides where it runs).
  Graph g = import_onnx(kModel);
  Tensor& mask = g.tensors.at("mask");
  mask.is_constant = false;
  mask.float_data.clear();
  mask.int_data.clear();
  g.inputs.push_back("mask");
  run_import_passes(g, {"infer-shapes", "select-where"}, "where");
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Mul", "Where", "Softmax"}));
}

}  // namespace
}  // namespace npu::compiler
