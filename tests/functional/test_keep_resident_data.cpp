// SRAM residency (keep-resident, sram_residency.hpp) executed with data, on a YOLOv5-Detect-like
// head: a conv whose output is reshaped to [1, anchors, H, W, 5 + classes], transposed, passed
// through a Sigmoid, split into xy / wh / conf, decoded by element-wise ops against constant
// grids and concatenated back. None of it is a depth-first stack (5-D tensors), so without
// residency every one of those tensors crosses DDR twice; with it, only the input, the weights
// and the output do. Checked by bytes (the program then moves exactly its compulsory bytes:
// inputs, weights and outputs once, isa::compulsory_bytes) and by values: fp32 equals the
// reference interpreter, int8 is bit-exact with the integer reference.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "functional_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/backend/tiling/sram_residency.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/verify/verify.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// x [1,8,8,8] -> 1x1 conv 8->16 + SiLU -> 1x1 conv 16->21 (bias) -> Reshape [1,3,7,8,8] ->
// Transpose (0,1,3,4,2) -> [1,3,8,8,7] -> Sigmoid -> Split (2,2,3) -> xy = (2 xy + grid) * 4,
// wh = (2 wh)^2 * anchors -> Concat (xy, wh, conf) -> [1,3,8,8,7].
// (c0 was a 3x3 conv: with the DMA time estimate the tiler cuts it into row tiles whose input
// bands overlap by a halo row, so x moved 2,560 B for its 2,048; a 1x1 conv's bands never
// overlap, so x moves once however its rows are tiled, and the head's tensors are the same.)
compiler::Graph resident_detect_head() {
  GraphBuilder b("detect");
  const std::string x = b.input("x", {1, 8, 8, 8});
  const std::string f = b.silu("c0.act", b.conv("c0", x, 16, 1, 1, 0, 1, true));
  const std::string m = b.conv("m", f, 21, 1, 1, 0, 1, true);
  b.add_tensor("r", {1, 3, 7, 8, 8});
  b.node("reshape", "Reshape", {m, b.ints("shape", {1, 3, 7, 8, 8})}, {"r"});
  b.add_tensor("t", {1, 3, 8, 8, 7});
  b.node("transpose", "Transpose", {"r"}, {"t"}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 4, 2};
  const std::string s = b.unary("sigmoid", "Sigmoid", "t");
  b.add_tensor("xy", {1, 3, 8, 8, 2});
  b.add_tensor("wh", {1, 3, 8, 8, 2});
  b.add_tensor("conf", {1, 3, 8, 8, 3});
  b.node("split", "Split", {s, b.ints("sizes", {2, 2, 3})}, {"xy", "wh", "conf"}).attrs["axis"] = std::int64_t(-1);
  const std::string two = b.scalar("two", 2.0f), stride = b.scalar("stride", 4.0f);
  const std::string grid = b.constant("grid", {1, 3, 8, 8, 2}, -0.5f, 7.5f);
  const std::string anchors = b.constant("anchors", {1, 3, 8, 8, 2}, 4.0f, 40.0f);
  const std::string xy =
      b.binary("xy.mul_stride", "Mul", b.binary("xy.add", "Add", b.binary("xy.mul", "Mul", "xy", two), grid), stride);
  const std::string wh2 = b.binary("wh.mul", "Mul", "wh", two);
  const std::string wh = b.binary("wh.mul_anchor", "Mul", b.binary("wh.pow", "Pow", wh2, two), anchors);
  b.add_tensor("y", {1, 3, 8, 8, 7});
  b.node("concat", "Concat", {xy, wh, "conf"}, {"y"}).attrs["axis"] = std::int64_t(-1);
  b.output("y");
  return b.g;
}

// depth-first with every tensor that fits kept in SRAM: compiled with its fences
// (--no-pipeline, so without residency), then keep_resident without the cost rule (on these
// tiny tensors a MOVE's pipeline latency costs more than their few bytes of traffic, and the
// rule would leave most of them in DDR). Returns the number kept.
int keep_all(compiler::CompileResult& c, const HwConfig& hw) {
  int n = 0;
  for (const auto& d : compiler::keep_resident(c.program, hw))
    n += d.outcome == compiler::DecisionOutcome::Applied;
  return n;
}

compiler::CompileResult fenced_depth_first(const compiler::Graph& g, const HwConfig& hw) {
  compiler::CompileOptions o;
  o.pipeline = false;
  return compiler::compile(g, hw, compiler::builtin_strategy("depth-first"), o);
}

std::uint64_t dma_bytes(const isa::Program& p) {
  std::uint64_t n = 0;
  for (const auto& in : p.instructions)
    if (const auto* d = std::get_if<isa::DmaDesc>(&in.params)) n += d->bytes();
  return n;
}

// No LOAD or STORE of an intermediate is left, and the DMAs move the compulsory bytes plus one
// element: the scalar 2 is read by both xy.mul and wh.mul (each layer loads its own operands;
// wh.pow takes its exponent as an immediate).
void expect_only_compulsory_traffic(const isa::Program& p, std::uint64_t elem_bytes) {
  std::map<std::string, isa::TensorKind> kind;
  for (const auto& t : p.tensors) kind[t.name] = t.kind;
  std::map<std::string, std::uint64_t> moved;
  for (const auto& in : p.instructions)
    if (in.op == isa::Opcode::Load || in.op == isa::Opcode::Store) {
      EXPECT_NE(kind.at(in.tensor), isa::TensorKind::Intermediate) << in.layer << " " << in.tensor;
      moved[in.tensor] += std::get<isa::DmaDesc>(in.params).bytes();
    }
  for (const auto& t : p.tensors) {
    EXPECT_NE(t.kind, isa::TensorKind::Intermediate) << t.name << ": every intermediate stays on chip, undeclared";
    EXPECT_EQ(moved[t.name], t.name == "two" ? 2 * elem_bytes : t.bytes) << t.name;
  }
  EXPECT_EQ(dma_bytes(p), isa::compulsory_bytes(p) + elem_bytes);
}

TEST(KeepResidentData, Fp32DetectHeadMovesOnlyItsCompulsoryBytesAndEqualsTheReference) {
  const compiler::Graph g = resident_detect_head();
  const HwConfig hw = test::fp32_hw(256 * 1024);  // every tensor of the head fits beside the others
  auto c = fenced_depth_first(g, hw);
  EXPECT_GE(keep_all(c, hw), 5) << "the conv output, the Split pieces and the decode results stay in SRAM";
  const auto r = compiler::compile(g, hw, compiler::builtin_strategy("residual"));
  expect_only_compulsory_traffic(c.program, 4);
  EXPECT_LT(dma_bytes(c.program), dma_bytes(r.program));
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 7, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  const auto run = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
  ASSERT_TRUE(run.ok) << run.error;
  EXPECT_LE(test::rel_err(run.outputs.at("y"), test::to_double(ref.at("y").f)), 1e-5);
}

TEST(KeepResidentData, Int8DetectHeadIsBitExactWithTheIntegerReference) {
  const compiler::Graph g = resident_detect_head();
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.sram.capacity_bytes = 64 * 1024;
  const compiler::Graph qg =
      compiler::quantize_graph(g, compiler::builtin_strategy("depth-first"), compiler::generate_calibration(g, 5, 4)).graph;
  auto c = fenced_depth_first(qg, hw);
  EXPECT_GE(keep_all(c, hw), 5);
  expect_only_compulsory_traffic(c.program, 1);
  const sim::Int8Check check = sim::check_int8_execution(c, hw, qg, compiler::generate_calibration(g, 6, 1).at(0));
  EXPECT_EQ(check.status, "bit-exact");
}

}  // namespace
