// Layout ops computed by MOVE (docs/isa.md): Transpose, Split, Concat along the last axis and
// nearest upsampling, compiled and executed with data. fp32: the outputs are the input values
// moved, so they must equal the index formulas written here exactly. int8: bit-exact with the
// integer reference on a YOLO-head-like graph. Small SRAMs force several tiles.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/verify/verify.hpp"

namespace {

using namespace npu;
using compiler::Node;
using compiler::Tensor;
using compiler::testing::GraphBuilder;

// x [1,3,4,5,6] -> Transpose perm (0,1,3,4,2) -> t [1,3,5,6,4] -> Split axis -1 (1,1,2) ->
// Concat of (s2, s0, s1) axis -1 -> y [1,3,5,6,4]; and z [1,4,3,5] -> Resize nearest x2 ->
// u [1,4,6,10]. `x`/`z` may be produced by `src` convolutions in int8 graphs.
struct HeadGraph {
  GraphBuilder b;
  std::string x, z, t, y, u;
};

void add_head(HeadGraph& h, const std::string& x, const std::string& z) {
  GraphBuilder& b = h.b;
  h.x = x, h.z = z;
  h.t = "t";
  b.add_tensor(h.t, {1, 3, 5, 6, 4});
  b.node("transpose", "Transpose", {x}, {h.t}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 4, 2};
  b.add_tensor("s0", {1, 3, 5, 6, 1});
  b.add_tensor("s1", {1, 3, 5, 6, 1});
  b.add_tensor("s2", {1, 3, 5, 6, 2});
  Tensor& sizes = b.add_tensor("split_sizes", {3}, true);
  sizes.type = compiler::ElemType::Int64;
  sizes.int_data = {1, 1, 2};
  b.node("split", "Split", {h.t, "split_sizes"}, {"s0", "s1", "s2"}).attrs["axis"] = std::int64_t(-1);
  h.y = "y";
  b.add_tensor(h.y, {1, 3, 5, 6, 4});
  b.node("concat", "Concat", {"s2", "s0", "s1"}, {h.y}).attrs["axis"] = std::int64_t(-1);
  b.output(h.y);
  Tensor& scales = b.add_tensor("scales", {4}, true);
  scales.float_data = {1, 1, 2, 2};
  h.u = "u";
  b.add_tensor(h.u, {1, 4, 6, 10});
  Node& r = b.node("resize", "Resize", {z, "", "scales"}, {h.u});
  r.attrs["mode"] = std::string("nearest");
  r.attrs["coordinate_transformation_mode"] = std::string("asymmetric");
  r.attrs["nearest_mode"] = std::string("floor");
  b.output(h.u);
}

TEST(LayoutMovesData, Fp32TransposeSplitConcatAndUpsamplingMoveEveryValue) {
  HeadGraph h;
  add_head(h, h.b.input("x", {1, 3, 4, 5, 6}), h.b.input("z", {1, 4, 3, 5}));
  // 1 KiB: 256 fp32 elements of SRAM, so the 360-element tensors take several tiles.
  const HwConfig hw = test::fp32_hw(1024);
  const auto c = compiler::compile(h.b.g, hw, compiler::builtin_strategy("none"));
  int moves = 0;
  for (const auto& in : c.program.instructions) moves += in.op == isa::Opcode::Move;
  EXPECT_GT(moves, 8) << "the layers were meant to be computed by MOVE in several tiles";
  std::vector<float> xv(360), zv(60);
  for (int i = 0; i < 360; ++i) xv[std::size_t(i)] = float(i);
  for (int i = 0; i < 60; ++i) zv[std::size_t(i)] = float(1000 + i);
  const auto r = test::run_forked(c, hw, {{"x", xv}, {"z", zv}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  // t[a][h][w][k] = x[a][k][h][w] = 120a + 30k + 6h + w; y's last axis is (t[..2], t[..3],
  // t[..0], t[..1]) (s2 = t[..2:4], then s0, s1).
  const std::vector<float>& y = r.outputs.at(h.y);
  ASSERT_EQ(y.size(), 360u);
  const int from[4] = {2, 3, 0, 1};
  for (int a = 0; a < 3; ++a)
    for (int hh = 0; hh < 5; ++hh)
      for (int w = 0; w < 6; ++w)
        for (int j = 0; j < 4; ++j)
          ASSERT_EQ(y[std::size_t(((a * 5 + hh) * 6 + w) * 4 + j)], float(120 * a + 30 * from[j] + 6 * hh + w))
              << a << " " << hh << " " << w << " " << j;
  // u[c][i][j] = z[c][i/2][j/2] = 1000 + 15c + 5(i/2) + j/2.
  const std::vector<float>& u = r.outputs.at(h.u);
  ASSERT_EQ(u.size(), 240u);
  for (int ch = 0; ch < 4; ++ch)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 10; ++j)
        ASSERT_EQ(u[std::size_t((ch * 6 + i) * 10 + j)], float(1000 + 15 * ch + 5 * (i / 2) + j / 2)) << ch << i << j;
}

TEST(LayoutMovesData, Int8HeadIsBitExactWithTheIntegerReferenceUnderEveryStrategy) {
  // Convolutions make the moved tensors (so PTQ calibrates real activations), then the head.
  HeadGraph h;
  GraphBuilder& b = h.b;
  const std::string in = b.input("in", {1, 8, 5, 6});
  const std::string c1 = b.conv("c1", in, 12, 3, 1, 1, 1, true);  // [1,12,5,6]
  Tensor& shape = b.add_tensor("shape5", {5}, true);
  shape.type = compiler::ElemType::Int64;
  shape.int_data = {1, 3, 4, 5, 6};
  b.add_tensor("x5", {1, 3, 4, 5, 6});
  b.node("reshape", "Reshape", {c1, "shape5"}, {"x5"});
  const std::string c2 = b.conv("c2", b.maxpool("p", in, 2, 2, 0), 4, 1, 1, 0, 1, true);  // [1,4,2,3]
  (void)c2;
  add_head(h, "x5", c2);
  b.g.tensors.at("u").shape = {1, 4, 4, 6};
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  ASSERT_EQ(hw.mac_array.dtype, DType::Int8);
  hw.sram.capacity_bytes = 1024;  // several tiles per layout layer (360-byte tensors)
  const auto calib = compiler::generate_calibration(b.g, 7, 4);
  const compiler::RefTensorMap input = compiler::generate_calibration(b.g, 8, 1).at(0);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const compiler::Strategy st = compiler::builtin_strategy(s);
    const compiler::Graph qg = compiler::quantize_graph(b.g, st, calib).graph;
    const auto compiled = compiler::compile(qg, hw, st);
    const sim::Int8Check r = sim::check_int8_execution(compiled, hw, qg, input);
    EXPECT_EQ(r.status, "bit-exact") << "strategy " << s;
  }
}

}  // namespace
