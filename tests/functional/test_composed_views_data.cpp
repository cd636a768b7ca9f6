// View composition (lowering_table.hpp composed_views): a Transpose/Split/Slice output read only
// by MOVE layers is computed by no layer; its readers read its input through the composed index
// map. YOLOv5's head (Reshape -> Transpose -> Split -> box decode -> Concat along the last axis)
// then moves its 81 class channels once instead of three times. Checked by structure (which
// layers remain, what they read), by DDR bytes derived by hand, and by values: every moved
// element lands where the index formula says, the head decodes to the reference interpreter's
// output under every strategy in fp32, and int8 programs stay bit-exact.
#include <gtest/gtest.h>

#include <algorithm>

#include "functional_test_util.hpp"
#include "int8_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

const compiler::LayerSpec* layer(const compiler::CompileResult& c, const std::string& name) {
  for (const auto& L : c.lowered.layers)
    if (L.name == name) return &L;
  return nullptr;
}

void dma_bytes(const isa::Program& p, std::uint64_t& rd, std::uint64_t& wr) {
  rd = wr = 0;
  for (const auto& in : p.instructions)
    if (in.op == isa::Opcode::Load) rd += std::get<isa::DmaDesc>(in.params).bytes();
    else if (in.op == isa::Opcode::Store) wr += std::get<isa::DmaDesc>(in.params).bytes();
}

// x [1,3,4,5,6] -> Transpose (0,1,3,4,2) -> t [1,3,5,6,4] -> Split axis -1 (1,1,2) -> Concat
// (s2, s0, s1) axis -1 -> y [1,3,5,6,4].
compiler::Graph transpose_split_concat() {
  GraphBuilder b("tsc");
  const std::string x = b.input("x", {1, 3, 4, 5, 6});
  b.add_tensor("t", {1, 3, 5, 6, 4});
  b.node("transpose", "Transpose", {x}, {"t"}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 4, 2};
  b.add_tensor("s0", {1, 3, 5, 6, 1});
  b.add_tensor("s1", {1, 3, 5, 6, 1});
  b.add_tensor("s2", {1, 3, 5, 6, 2});
  b.ints("split_sizes", {1, 1, 2});
  b.node("split", "Split", {"t", "split_sizes"}, {"s0", "s1", "s2"}).attrs["axis"] = std::int64_t(-1);
  b.add_tensor("y", {1, 3, 5, 6, 4});
  b.node("concat", "Concat", {"s2", "s0", "s1"}, {"y"}).attrs["axis"] = std::int64_t(-1);
  b.output("y");
  return b.g;
}

TEST(ComposedViews, TransposeSplitConcatIsOneMoveLayerThatReadsTheInputOnce) {
  const compiler::Graph g = transpose_split_concat();
  const HwConfig hw = test::fp32_hw(1024);  // 256 fp32 elements: several tiles
  const auto c = compiler::compile(g, hw, compiler::builtin_strategy("none"));
  ASSERT_EQ(c.lowered.layers.size(), 1u);
  const compiler::LayerSpec& L = c.lowered.layers[0];
  EXPECT_EQ(L.name, "concat");
  EXPECT_EQ(L.inputs, std::vector<std::string>{"x"});
  EXPECT_TRUE(has(L.covers, "split") && has(L.covers, "transpose"));
  EXPECT_TRUE(has(c.lowered.composed, "split") && has(c.lowered.composed, "transpose"));
  // 360 fp32 elements read once and written once: 1440 B each way (before: the Transpose, the
  // three Split outputs and the Concat each read and wrote all of them, 3 x 1440 B each way).
  std::uint64_t rd = 0, wr = 0;
  dma_bytes(c.program, rd, wr);
  EXPECT_EQ(rd, 1440u);
  EXPECT_EQ(wr, 1440u);
  std::vector<float> xv(360);
  for (int i = 0; i < 360; ++i) xv[std::size_t(i)] = float(i);
  const auto r = test::run_forked(c, hw, {{"x", xv}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  // y[a][h][w][j] = t[a][h][w][from[j]] = x[a][from[j]][h][w] = 120a + 30 from[j] + 6h + w.
  const std::vector<float>& y = r.outputs.at("y");
  ASSERT_EQ(y.size(), 360u);
  const int from[4] = {2, 3, 0, 1};
  for (int a = 0; a < 3; ++a)
    for (int h = 0; h < 5; ++h)
      for (int w = 0; w < 6; ++w)
        for (int j = 0; j < 4; ++j)
          ASSERT_EQ(y[std::size_t(((a * 5 + h) * 6 + w) * 4 + j)], float(120 * a + 30 * from[j] + 6 * h + w))
              << a << h << w << j;
}

// Strided slices compose: x [1,1,16,3] -> Slice axis 2 start 1 step 2 -> [1,1,8,3] -> Slice
// axis 2 start 2 step 3 -> [1,1,2,3] (rows 2 and 5 of the first slice = rows 5 and 11 of x) ->
// Transpose (0,1,3,2) -> y [1,1,3,2]: y[w][k] = x[5 + 6k][w].
TEST(ComposedViews, StridedSlicesAndATransposeComposeIntoOneMove) {
  GraphBuilder b("slices");
  const std::string x = b.input("x", {1, 1, 16, 3});
  b.ints("st1", {1}), b.ints("en1", {16}), b.ints("ax", {2}), b.ints("sp1", {2});
  b.ints("st2", {2}), b.ints("en2", {8}), b.ints("sp2", {3});
  b.add_tensor("a", {1, 1, 8, 3});
  b.node("slice1", "Slice", {x, "st1", "en1", "ax", "sp1"}, {"a"});
  b.add_tensor("bb", {1, 1, 2, 3});
  b.node("slice2", "Slice", {"a", "st2", "en2", "ax", "sp2"}, {"bb"});
  b.add_tensor("y", {1, 1, 3, 2});
  b.node("transpose", "Transpose", {"bb"}, {"y"}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 2};
  b.output("y");
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  ASSERT_EQ(c.lowered.layers.size(), 1u);
  EXPECT_EQ(c.lowered.layers[0].inputs, std::vector<std::string>{"x"});
  std::vector<float> xv(48);
  for (int i = 0; i < 48; ++i) xv[std::size_t(i)] = float(i);
  const auto r = test::run_forked(c, hw, {{"x", xv}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float>& y = r.outputs.at("y");
  ASSERT_EQ(y.size(), 6u);
  for (int w = 0; w < 3; ++w)
    for (int k = 0; k < 2; ++k) EXPECT_EQ(y[std::size_t(w * 2 + k)], float((5 + 6 * k) * 3 + w)) << w << k;
}

// YOLOv5's Detect head at a small scale: in [1,4,6,6] -> 1x1 conv to 3 x 5 channels -> Sigmoid
// -> Reshape [1,3,5,6,6] -> Transpose (0,1,3,4,2) -> Split axis 4 (2,2,1) -> xy = s0 x 2 +
// grid, wh = (s1 x 2)^2 x anchors -> Concat (xy, wh, s2) axis 4 -> Reshape [1,108,5].
// `transpose_is_output`: the Transpose's output is also a graph output.
compiler::Graph head(bool transpose_is_output) {
  GraphBuilder b("head");
  const std::string in = b.input("in", {1, 4, 6, 6});
  const std::string c = b.unary("sig", "Sigmoid", b.conv("m", in, 15, 1, 1, 0, 1, true));
  b.ints("shape5", {1, 3, 5, 6, 6});
  b.add_tensor("r", {1, 3, 5, 6, 6});
  b.node("reshape", "Reshape", {c, "shape5"}, {"r"});
  b.add_tensor("t", {1, 3, 6, 6, 5});
  b.node("transpose", "Transpose", {"r"}, {"t"}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 4, 2};
  if (transpose_is_output) b.output("t");
  b.add_tensor("s0", {1, 3, 6, 6, 2});
  b.add_tensor("s1", {1, 3, 6, 6, 2});
  b.add_tensor("s2", {1, 3, 6, 6, 1});
  b.ints("split_sizes", {2, 2, 1});
  b.node("split", "Split", {"t", "split_sizes"}, {"s0", "s1", "s2"}).attrs["axis"] = std::int64_t(4);
  const std::string two = b.scalar("two", 2.0f);
  const std::string grid = b.constant("grid", {1, 3, 6, 6, 2}, -0.5f, 5.5f);
  const std::string anchors = b.constant("anchors", {1, 3, 6, 6, 2}, 10.0f, 60.0f);
  const std::string xy = b.binary("xy.add", "Add", b.binary("xy.mul", "Mul", "s0", two), grid);
  const std::string wh2 = b.binary("wh.mul", "Mul", "s1", two);
  const std::string wh = b.binary("wh.anchor", "Mul", b.binary("wh.pow", "Pow", wh2, two), anchors);
  b.add_tensor("cat", {1, 3, 6, 6, 5});
  b.node("concat", "Concat", {xy, wh, "s2"}, {"cat"}).attrs["axis"] = std::int64_t(4);
  b.ints("shape3", {1, 108, 5});
  b.add_tensor("y", {1, 108, 5});
  b.node("reshape_out", "Reshape", {"cat", "shape3"}, {"y"});
  b.output("y");
  return b.g;
}

TEST(ComposedViews, DetectHeadMovesItsClassChannelsOnceAndDecodesLikeTheReference) {
  const compiler::Graph g = head(false);
  const HwConfig hw = test::fp32_hw();
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 3, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + s);
    const auto c = compiler::compile(g, hw, compiler::builtin_strategy(s));
    // The Transpose and the Split's pass-through output (s2) are composed; s0 and s1 feed Muls,
    // so they are computed, by MOVEs that read the conv's output (through the Reshape) directly.
    EXPECT_EQ(layer(c, "transpose"), nullptr);
    EXPECT_EQ(layer(c, "split:2"), nullptr);
    for (const char* part : {"split:0", "split:1"}) {
      const compiler::LayerSpec* L = layer(c, part);
      ASSERT_NE(L, nullptr) << part;
      EXPECT_EQ(L->inputs, std::vector<std::string>{"r"}) << part;
    }
    const compiler::LayerSpec* cat = layer(c, "concat");
    ASSERT_NE(cat, nullptr);
    EXPECT_TRUE(has(cat->inputs, "r"));
    EXPECT_FALSE(has(cat->inputs, "s2"));
    EXPECT_TRUE(has(cat->covers, "split") && has(cat->covers, "transpose"));
    const auto r = test::run_forked(c, hw, {{"in", in.at("in").f}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.outputs.count("y"), 1u);
    EXPECT_LE(test::rel_err(r.outputs.at("y"), test::to_double(ref.at("y").f)), 1e-5);
  }
}

TEST(ComposedViews, AGraphOutputOrANonMoveReaderKeepsTheLayer) {
  // The Transpose's output is a graph output: it is computed (and its readers read it).
  const auto c = compiler::compile(head(true), test::fp32_hw(), compiler::builtin_strategy("none"));
  const compiler::LayerSpec* t = layer(c, "transpose");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->inputs, std::vector<std::string>{"r"});
  EXPECT_FALSE(has(c.lowered.composed, "transpose"));
  // s2 still composes into the Concat, which then reads t (computed), not r.
  const compiler::LayerSpec* cat = layer(c, "concat");
  ASSERT_NE(cat, nullptr);
  EXPECT_TRUE(has(cat->inputs, "t"));
  EXPECT_FALSE(has(cat->inputs, "r"));
  EXPECT_EQ(layer(c, "split:2"), nullptr);
  EXPECT_NE(layer(c, "split:0"), nullptr);  // read by a Mul: computed
}

TEST(ComposedViews, Int8HeadIsBitExactUnderEveryStrategy) {
  const compiler::Graph g = head(false);
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto calib = compiler::generate_calibration(g, 5, 4);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 6, 1).at(0);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const compiler::Strategy st = compiler::builtin_strategy(s);
    const compiler::Graph qg = compiler::quantize_graph(g, st, calib).graph;
    const auto c = compiler::compile(qg, hw, st);
    // Layout ops keep their input's int8 grid, so the Transpose composes in int8 too.
    EXPECT_TRUE(has(c.lowered.composed, "transpose")) << "strategy " << s;
    // (s2 is computed here: PTQ requantises the Concat's inputs onto its grid, so s2's reader
    // is a requantising Clip, not a MOVE.)
    EXPECT_EQ(layer(c, "transpose"), nullptr) << "strategy " << s;
    const sim::Int8Check r = sim::check_int8_execution(c, hw, qg, in);
    EXPECT_EQ(r.status, "bit-exact") << "strategy " << s;
  }
}

}  // namespace
