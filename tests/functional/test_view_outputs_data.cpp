// A graph output that is a zero-copy view (a Slice or Split along the outermost non-unit axis:
// the output is a byte range of its input, lowering.cpp link_aliases_and_concats) is read back
// from its offset inside the bytes the producing layer writes. It used to be read from the
// start of them: a channel Slice's output returned the first channels of the conv, and
// `npu simulate --with-data` exited 0 with those values (found by a new-user probe).
// Checked with data: every strategy gives the fp32 reference interpreter's values, and int8
// programs are bit-exact with the integer reference.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "int8_test_util.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// x [1,4,5,6] -> c = conv 3x3 4 -> 9 -> Slice channels [3, 6) -> graph output s (zero copy:
// channel 3 starts 3 x 30 elements into c); and Split of c along C into (2, 3, 4) -> graph
// outputs p0, p1, p2 (offsets 0, 60, 150 elements); c itself is no graph output.
compiler::Graph channel_views() {
  GraphBuilder b("views");
  const std::string x = b.input("x", {1, 4, 5, 6});
  const std::string c = b.conv("conv", x, 9, 3, 1, 1, 1, true);
  b.ints("st", {3}), b.ints("en", {6}), b.ints("ax", {1});
  b.add_tensor("s", {1, 3, 5, 6});
  b.node("slice", "Slice", {c, "st", "en", "ax"}, {"s"});
  b.output("s");
  b.ints("sizes", {2, 3, 4});
  b.add_tensor("p0", {1, 2, 5, 6});
  b.add_tensor("p1", {1, 3, 5, 6});
  b.add_tensor("p2", {1, 4, 5, 6});
  b.node("split", "Split", {c, "sizes"}, {"p0", "p1", "p2"}).attrs["axis"] = std::int64_t(1);
  for (const char* o : {"p0", "p1", "p2"}) b.output(o);
  return b.g;
}

TEST(ViewOutputs, ChannelSliceAndSplitOutputsReadTheirOwnChannels) {
  const compiler::Graph g = channel_views();
  const HwConfig hw = test::fp32_hw();
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 3, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + s);
    const auto c = compiler::compile(g, hw, compiler::builtin_strategy(s));
    // The outputs are placed at their offsets inside the conv's output (fp32: 4 B an element).
    ASSERT_EQ(c.lowered.output_place.count("s"), 1u);
    EXPECT_EQ(c.lowered.output_place.at("s").offset, 3u * 30u * 4u);
    EXPECT_EQ(c.lowered.output_place.at("p1").offset, 2u * 30u * 4u);
    EXPECT_EQ(c.lowered.output_place.at("p2").offset, 5u * 30u * 4u);
    const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    for (const char* o : {"s", "p0", "p1", "p2"}) {
      ASSERT_EQ(r.outputs.count(o), 1u) << o;
      EXPECT_LE(test::rel_err(r.outputs.at(o), test::to_double(ref.at(o).f)), 1e-5) << o;
    }
  }
}

TEST(ViewOutputs, Int8IsBitExactUnderEveryStrategy) {
  const compiler::Graph g = channel_views();
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  npu::test::expect_int8_bit_exact_under_every_strategy(g, hw, 5, 6);
}

}  // namespace
