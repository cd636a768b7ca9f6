// A broadcast ELTWISE whose broadcast operand does not fit the SRAM beside the streamed chunks
// (a causal mask [1,1,S,S] added to [1,H,S,S] scores under `none` on a small SRAM, a layer
// that used to be refused) tiles that operand with the other one:
// each chunk loads only the window of b it uses (docs/compiler.md "Code generation"). Values
// against a direct computation; DDR bytes derived by hand.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using test::fp32_hw;
using test::random_values;

// Sum of the LOAD bytes of `tensor` and the number of those LOADs; the largest one in `largest`.
std::uint64_t load_bytes(const compiler::CompileResult& c, const std::string& tensor, int* loads = nullptr,
                         std::uint64_t* largest = nullptr) {
  std::uint64_t sum = 0;
  for (const auto& in : c.program.instructions) {
    if (in.op != isa::Opcode::Load || in.tensor != tensor) continue;
    const std::uint64_t b = std::get<isa::DmaDesc>(in.params).bytes();
    sum += b;
    if (loads) *loads += 1;
    if (largest) *largest = std::max(*largest, b);
  }
  return sum;
}

std::uint64_t store_bytes(const compiler::CompileResult& c) {
  std::uint64_t sum = 0;
  for (const auto& in : c.program.instructions)
    if (in.op == isa::Opcode::Store) sum += std::get<isa::DmaDesc>(in.params).bytes();
  return sum;
}

// scores [1,3,40,40] + mask [1,1,40,40], fp32: the mask is 1600 x 4 = 6400 B.
struct MaskAdd {
  GraphBuilder b;
  std::string y;
  MaskAdd() {
    b.input("scores", {1, 3, 40, 40});
    b.input("mask", {1, 1, 40, 40});
    y = "y";
    b.add_tensor(y, {1, 3, 40, 40});
    b.node("add", "Add", {"scores", "mask"}, {y});
    b.output(y);
  }
};

TEST(BroadcastTilesData, MaskThatDoesNotFitIsLoadedPerChunkWindow) {
  MaskAdd m;
  // Resident needs the mask (6400 B) + 4 stream buffers of 64 elements (4 x 64 x 4 B) + their
  // 4 x 64 B alignment = 7680 B > 6 KiB: tiled. (Chunks of 192 elements, (6144 - 6 x 64 B) /
  // (6 buffers x 4 B) rounded down to 64, do not divide the 1600-element period: a chunk stops
  // at its end.)
  const HwConfig hw = fp32_hw(6 * 1024);
  const auto c = compiler::compile(m.b.g, hw, compiler::builtin_strategy("none"));
  // DDR by hand: scores read once (4800 x 4 = 19200 B), the mask once per head (3 x 6400 =
  // 19200 B: each head's chunks cover its 1600 mask elements exactly once), y written once
  // (19200 B). A resident mask would read 6400 B; tiling trades 2 x 6400 B for fitting.
  EXPECT_EQ(load_bytes(c, "scores"), 19200u);
  int mask_loads = 0;
  std::uint64_t largest = 0;
  EXPECT_EQ(load_bytes(c, "mask", &mask_loads, &largest), 19200u);
  EXPECT_EQ(store_bytes(c), 19200u);
  EXPECT_GT(mask_loads, 3) << "several chunks per head";
  EXPECT_LT(largest, 6400u) << "no LOAD of the whole mask";
  const auto sv = random_values(4800, 1), mv = random_values(1600, 2);
  const auto r = test::run_forked(c, hw, {{"scores", sv}, {"mask", mv}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  const auto& out = r.outputs.at(m.y);
  ASSERT_EQ(out.size(), 4800u);
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], sv[i] + mv[i % 1600]) << "element " << i;
}

TEST(BroadcastTilesData, MaskThatFitsStaysResidentAndIsReadOnce) {
  // 7680 B (above) <= 8 KiB: resident, one LOAD of the whole mask, as before tiling existed.
  for (std::uint64_t kib : {8, 64}) {
    MaskAdd m;
    const auto c = compiler::compile(m.b.g, fp32_hw(kib * 1024), compiler::builtin_strategy("none"));
    int loads = 0;
    EXPECT_EQ(load_bytes(c, "mask", &loads), 6400u) << kib << " KiB";
    EXPECT_EQ(loads, 1) << kib << " KiB";
    EXPECT_EQ(load_bytes(c, "scores"), 19200u) << kib << " KiB";
  }
}

TEST(BroadcastTilesData, InnerRepeatAndReversedOperandsTile) {
  // Sub(b, a) with b [1,40,40,1] broadcast over a [2,40,40,5]: b's element (i / 5) % 1600
  // (b_inner 5), the reversed op (rsub). b = 6400 B does not fit 6 KiB: tiled; a chunk's window starts
  // inside a run of 5 (192-element chunks), so b_offset is not 0. DDR: a 16000 x 4 = 64000 B,
  // y 64000 B; b twice (the two outer indices) 2 x 6400 = 12800 B, plus the b element of each
  // run of 5 that a chunk boundary splits, loaded by both chunks: a period of 8000 elements has
  // boundaries at 192 k, k = 1 .. 41, inside a run unless 192 k = 2 k (mod 5) is 0, i.e. k a
  // multiple of 5 (8 of them): 33 per period, 2 x 33 x 4 = 264 B. b: 13064 B.
  GraphBuilder b;
  b.input("a", {2, 40, 40, 5});
  b.input("b", {1, 40, 40, 1});
  b.add_tensor("y", {2, 40, 40, 5});
  b.node("sub", "Sub", {"b", "a"}, {"y"});
  b.output("y");
  const HwConfig hw = fp32_hw(6 * 1024);
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  EXPECT_EQ(load_bytes(c, "a"), 64000u);
  EXPECT_EQ(load_bytes(c, "b"), 13064u);
  EXPECT_EQ(store_bytes(c), 64000u);
  const auto av = random_values(16000, 3), bv = random_values(1600, 4);
  const auto r = test::run_forked(c, hw, {{"a", av}, {"b", bv}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  const auto& out = r.outputs.at("y");
  ASSERT_EQ(out.size(), 16000u);
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], bv[(i / 5) % 1600] - av[i]) << "element " << i;
}

}  // namespace
