// The int8 bilinear Resize on the NPU (issue 28: the heads of deeplabv3_resnet50 and
// lraspp_mobilenet_v3_large): ELTWISE lerp (columns, exact int32) then lerp_round (rows, one
// rounding by 2^-20), codegen/resize_linear_int8.cpp. The data path's two ops by hand, then
// small Resize graphs compiled and run with int8 data, bit for bit against the integer
// reference's rule (qref::resize_bilinear, TFLite's ResizeBilinearInteger, written separately
// in reference/quantised_resize.cpp), then a Conv -> Resize -> Conv network through
// post-training quantisation under every strategy.
#include <gtest/gtest.h>

#include "int8_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/hw/functional/data_path.hpp"
#include "npu/hw/functional/int8_ops.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "reference/quantised_rules.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using Codes = std::vector<std::int8_t>;

constexpr float kScale = 0.5f;
constexpr std::int64_t kZp = 3;

// x [1,2,h,w] -> Resize (mode linear, `ctm`, sizes) -> y [1,2,oh,ow], both on (0.5, 3).
compiler::Graph bilinear_graph(std::int64_t h, std::int64_t w, std::int64_t oh, std::int64_t ow, const std::string& ctm) {
  GraphBuilder b("resize_int8_npu");
  b.input("x", {1, 2, h, w});
  const compiler::QuantParams grid{{kScale}, {kZp}, 1, compiler::ElemType::Int8};
  b.g.tensor("x").quant = grid;
  b.ints("sizes", {1, 2, oh, ow});
  b.add_tensor("y", {1, 2, oh, ow}).quant = grid;
  compiler::Node& n = b.node("resize", "Resize", {"x", "", "", "sizes"}, {"y"});
  n.attrs["mode"] = std::string("linear");
  n.attrs["coordinate_transformation_mode"] = ctm;
  b.output("y");
  return b.g;
}

// Codes of x [1,2,h,w]: plane 0 the plane 10 r + 3 c - 20 (so a bilinear value is the plane's
// value at the source coordinate), plane 1 scattered over most of the int8 range.
Codes codes(std::int64_t h, std::int64_t w) {
  Codes q;
  for (std::int64_t r = 0; r < h; ++r)
    for (std::int64_t c = 0; c < w; ++c) q.push_back(std::int8_t(10 * r + 3 * c - 20));
  for (std::int64_t i = 0; i < h * w; ++i) q.push_back(std::int8_t((i * 97 + 11) % 240 - 115));
  return q;
}

// The simulated int8 output of `g` (already quantised) for input codes `q`, and the status of
// the comparison with the integer reference.
Codes run_npu(const compiler::Graph& g, const Codes& q, std::uint64_t sram_bytes, std::string& status) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  if (sram_bytes) hw.sram.capacity_bytes = sram_bytes;
  compiler::RefTensor x;
  x.shape = g.tensors.at("x").shape;
  for (std::int8_t c : q) x.f.push_back(float(c - kZp) * kScale);  // exactly code c on (0.5, 3)
  const sim::Int8Check r =
      sim::check_int8_execution(compiler::compile(g, hw, compiler::builtin_strategy("none")), hw, g, {{"x", x}});
  status = r.status;
  Codes y;
  if (r.raw.count("y"))
    for (std::int64_t v : r.raw.at("y").i) y.push_back(std::int8_t(v));
  return y;
}

}  // namespace

TEST(ResizeBilinearInt8Npu, LerpAndLerpRoundByHand) {
  hw::BackingStore ddr{"DDR", 1 << 12};
  hw::DataPath dp{ddr, 1 << 16, DType::Int8};
  const Codes a{-20, -10}, b{-17, -7};  // x[0,0], x[1,0] and x[0,1], x[1,1] of plane 0 above
  const std::vector<std::int32_t> w{256};  // fx = fy = 256 (half_pixel 4 -> 8, output index 1)
  dp.sram().write(0x0, a.data(), 2);
  dp.sram().write(0x10, b.data(), 2);
  dp.sram().write(0x100, w.data(), 4);
  isa::EltwiseParams p;
  p.op = isa::EltwiseOp::Lerp;
  p.a_addr = 0x0, p.b_addr = 0x10, p.out_addr = 0x20, p.elems = 2;
  p.b_elems = 1;  // one weight for both elements
  p.requant.on = true, p.requant.addr = 0x100;
  hw::functional::eltwise_int8(p, dp.sram());
  std::int32_t t[2];
  dp.sram().read(0x20, t, 8);
  // top = -20 x 768 + -17 x 256 = -19712; bottom = -10 x 768 + -7 x 256 = -9472
  EXPECT_EQ(t[0], -19712);
  EXPECT_EQ(t[1], -9472);
  p.op = isa::EltwiseOp::LerpRound;
  p.a_addr = 0x20, p.b_addr = 0x24, p.out_addr = 0x40, p.elems = 1;
  hw::functional::eltwise_int8(p, dp.sram());
  std::int8_t y = 0;
  dp.sram().read(0x40, &y, 1);
  // s = -19712 x 768 + -9472 x 256 = -17,563,648 = -16.75 x 2^20 -> half away from zero: -17
  // (the plane 10 r + 3 c - 20 at (0.25, 0.25) is -16.75).
  EXPECT_EQ(y, -17);
  EXPECT_EQ(hw::functional::lerp_round_int8(-(std::int64_t(1) << 19)), -1);  // -0.5 -> -1
  EXPECT_EQ(hw::functional::lerp_round_int8((std::int64_t(1) << 19) - 1), 0);
}

TEST(ResizeBilinearInt8Npu, HalfPixelIsBitExactWithTheIntegerRule) {
  const compiler::Graph g = bilinear_graph(3, 4, 6, 8, "half_pixel");
  const Codes q = codes(3, 4);
  const Codes want = compiler::qref::resize_bilinear({1, 2, 3, 4}, q, 6, 8, "half_pixel");
  // By hand, plane 0 output (1, 1): half_pixel 3 -> 6 and 4 -> 8 both have scale_10 = 512 and
  // v(1) = 512 - 256 = 256: rows 0, 1 and columns 0, 1 with f = 256, so s = -20 x 768^2 +
  // -10 x 256 x 768 + -17 x 768 x 256 + -7 x 256^2 = -17,563,648 -> -17 (as above).
  ASSERT_EQ(want.size(), 96u);
  EXPECT_EQ(want[1 * 8 + 1], -17);
  for (std::uint64_t sram : {std::uint64_t(0), std::uint64_t(2048)}) {  // the preset, then tiles of 2 rows x 2 planes
    std::string status;
    EXPECT_EQ(run_npu(g, q, sram, status), want) << "SRAM " << sram;
    EXPECT_EQ(status, "bit-exact") << "SRAM " << sram;
  }
}

TEST(ResizeBilinearInt8Npu, AlignCornersAndPytorchHalfPixelAreBitExactWithTheIntegerRule) {
  const Codes q = codes(3, 4);
  // By hand, align_corners plane 0 output (1, 1): scale_10 = (2048 + 2) / 5 = 410 for the rows
  // and (3072 + 3) / 7 = 439 for the columns, so fy = 410, fx = 439 (rows and columns 0, 1):
  // s = -20 x 614 x 585 + -10 x 410 x 585 + -17 x 614 x 439 + -7 x 410 x 439 = -15,424,512
  // = -14.71 x 2^20 -> -15 (the plane at (0.4, 3/7) is -14.71).
  const Codes want = compiler::qref::resize_bilinear({1, 2, 3, 4}, q, 6, 8, "align_corners");
  EXPECT_EQ(want[1 * 8 + 1], -15);
  std::string status;
  EXPECT_EQ(run_npu(bilinear_graph(3, 4, 6, 8, "align_corners"), q, 0, status), want);
  EXPECT_EQ(status, "bit-exact");
  // A downscale 3 x 4 -> 2 x 3 in pytorch_half_pixel, with a tiny SRAM (one row x one plane).
  const Codes down = compiler::qref::resize_bilinear({1, 2, 3, 4}, q, 2, 3, "pytorch_half_pixel");
  EXPECT_EQ(run_npu(bilinear_graph(3, 4, 2, 3, "pytorch_half_pixel"), q, 1024, status), down);
  EXPECT_EQ(status, "bit-exact");
}

TEST(ResizeBilinearInt8Npu, ConvResizeConvIsBitExactUnderEveryStrategy) {
  // A segmentation head in small: Conv 3x3 -> bilinear x2 (half_pixel) -> Conv 1x1, quantised
  // by post-training quantisation (the Resize shares its input's grid).
  GraphBuilder b("seg_head");
  const std::string c = b.conv("conv", b.input("x", {1, 3, 5, 6}), 4, 3, 1, 1, 1, true);
  b.ints("sizes", {1, 4, 10, 12});
  b.add_tensor("up", {1, 4, 10, 12});
  compiler::Node& n = b.node("resize", "Resize", {c, "", "", "sizes"}, {"up"});
  n.attrs["mode"] = std::string("linear");
  n.attrs["coordinate_transformation_mode"] = std::string("half_pixel");
  b.output(b.conv("proj", "up", 2, 1, 1, 0, 1, true));
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  npu::test::expect_int8_bit_exact_under_every_strategy(b.g, hw, 5, 6);
}

namespace {

// What a Resize instruction costs: its opcode, the ELTWISE op and element counts, the MOVE and
// DMA extents and SRAM addresses (not the requant operand's zero points, which only a
// quantised graph has).
std::vector<std::string> resize_costs(const compiler::CompileResult& r) {
  std::vector<std::string> out;
  for (const isa::Instruction& in : r.program.instructions) {
    if (in.layer != "resize") continue;
    std::string s = isa::to_string(in.op);
    if (const auto* e = std::get_if<isa::EltwiseParams>(&in.params))
      s += std::string(" ") + isa::to_string(e->op) + " " + std::to_string(e->elems) + " b" + std::to_string(e->b_elems);
    if (const auto* m = std::get_if<isa::MoveParams>(&in.params))
      s += " " + std::to_string(m->in_addr) + "->" + std::to_string(m->out_addr) + " x" + std::to_string(m->extent[0]);
    if (const auto* d = std::get_if<isa::DmaDesc>(&in.params))
      s += " " + std::to_string(d->sram_addr) + " " + std::to_string(d->bytes()) + " B";
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST(ResizeBilinearInt8Npu, AnUnquantisedGraphOnAnInt8ConfigIsCostedAsTheQuantisedProgram) {
  // An int8 config timing a float graph (no scales: `npu simulate` without quantisation) costs
  // the bilinear Resize as the int8 program the quantised graph runs, not as a one-pass copy.
  // The quantised program is the reference (its data are bit-exact above). By hand, for
  // [1,2,3,4] -> [1,2,6,8] in one tile: one LOAD of the 4 B x (6 + 8) weight table, two row
  // LOADs per output row (12), 2 x 8 column MOVEs, ELTWISE lerp over 2 x 6 x 2 x 8 = 192 int32
  // sums and lerp_round over 6 x 2 x 8 = 96 outputs.
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const compiler::Graph quantised = bilinear_graph(3, 4, 6, 8, "half_pixel");
  compiler::Graph plain = quantised;
  for (auto& [name, t] : plain.tensors) t.quant.reset();
  const auto q = compiler::compile(quantised, hw, compiler::builtin_strategy("none"));
  const auto f = compiler::compile(plain, hw, compiler::builtin_strategy("none"));
  ASSERT_TRUE(q.lowered.int8_execution);
  ASSERT_FALSE(f.lowered.int8_execution);
  const std::vector<std::string> costs = resize_costs(f);
  EXPECT_EQ(costs, resize_costs(q));
  int loads = 0, moves = 0;
  std::vector<std::string> eltwise;
  for (const std::string& s : costs) {
    loads += s.rfind("LOAD", 0) == 0;
    moves += s.rfind("MOVE", 0) == 0;
    if (s.rfind("ELTWISE", 0) == 0) eltwise.push_back(s.substr(0, s.find(" b")));
  }
  EXPECT_EQ(loads, 1 + 2 * 6);
  EXPECT_EQ(moves, 2 * 8);
  EXPECT_EQ(eltwise, (std::vector<std::string>{"ELTWISE lerp 192", "ELTWISE lerp_round 96"}));
}
