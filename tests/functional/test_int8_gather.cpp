// The int8 token-embedding Gather (docs/functional.md "int8 execution"): Gather(table [V, D],
// ids) by run-time int64 ids. Post-training quantisation puts the table on the per-tensor grid
// of its own values and the Gather's output on the same grid, so the NPU moves int8 rows as they
// are (gather LOADs, no requantisation); ids are not quantised (integer graph input), and
// seeded calibration draws them in [0, V).
#include <gtest/gtest.h>

#include <filesystem>

#include "int8_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/compiler/quantize/integer_inputs.hpp"
#include "npu/compiler/reference/reference_quantised.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_compile_graphs.hpp"

using namespace npu;

namespace {

// Table [4, 3] with values in [-1, 2] (both ends present), ids int64 [1, 2] -> y [1, 2, 3].
compiler::Graph embedding(bool then_project) {
  compiler::testing::GraphBuilder b("embed");
  b.input("ids", {1, 2});
  b.g.tensors.at("ids").type = compiler::ElemType::Int64;
  compiler::Tensor& t = b.add_tensor("table", {4, 3}, true);
  t.float_data = {-1.0f, 0.0f, 0.4f, 1.0f, 2.0f, 0.0f, 0.2f, -0.4f, 1.2f, 2.0f, -1.0f, 0.0f};
  b.add_tensor("e", {1, 2, 3});
  b.node("gather", "Gather", {"table", "ids"}, {"e"}).attrs["axis"] = std::int64_t{0};
  if (!then_project) {
    b.output("e");
    return b.g;
  }
  // GPT-2's start: + a learned position table, then a projection.
  b.constant("pos", {1, 2, 3}, -0.5f, 0.5f);
  const std::string x = b.binary("add_pos", "Add", "e", "pos");
  b.constant("w", {3, 5}, -1.0f, 1.0f);
  b.add_tensor("y", {1, 2, 5});
  b.node("proj", "MatMul", {x, "w"}, {"y"});
  b.output("y");
  return b.g;
}

compiler::RefTensorMap ids_input(std::vector<std::int64_t> ids) {
  compiler::RefTensor t;
  t.shape = {1, 2};
  t.type = compiler::ElemType::Int64;
  t.i = std::move(ids);
  return {{"ids", t}};
}

HwConfig edge() { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"); }

}  // namespace

TEST(Int8Gather, TheTableKeepsItsGridAndTheRowsMoveAsTheyAreByHand) {
  // Table range [-1, 2]: s = 3 / 255, zp = round_half_even(-128 - (-1) / s) = -128 + 85 = -43.
  // Codes q = round(v / s) + zp, v / s = 85 v (no ties: s is a float, 85 v an integer here):
  //   row 2 (0.2, -0.4, 1.2): 17, -34, 102 -> -26, -77, 59
  //   row 0 (-1, 0, 0.4):     -85, 0, 34   -> -128, -43, -9
  // ids [2, 0] -> y = row 2 then row 0, the codes unchanged (same grid, no requantisation).
  const compiler::Graph g = embedding(false);
  const compiler::Strategy st = compiler::builtin_strategy("none");
  const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 7, 4)).graph;
  const compiler::Tensor& table = qg.tensors.at("table");
  ASSERT_TRUE(table.quant);
  EXPECT_FLOAT_EQ(table.quant->scale.at(0), 3.0f / 255.0f);
  EXPECT_EQ(table.quant->zero_point.at(0), -43);
  ASSERT_TRUE(qg.tensors.at("e").quant);
  EXPECT_EQ(qg.tensors.at("e").quant->scale, table.quant->scale);
  EXPECT_EQ(qg.tensors.at("e").quant->zero_point, table.quant->zero_point);
  EXPECT_FALSE(qg.tensors.at("ids").quant) << "token ids are not quantised";
  const std::vector<std::int8_t> want{-26, -77, 59, -128, -43, -9};
  const compiler::QuantisedTensorMap ref = compiler::run_quantised_reference(qg, {{"ids", {2.0f, 0.0f}}});
  EXPECT_EQ(ref.at("e").q, want);
  const HwConfig hw = edge();
  const sim::Int8Check c = sim::check_int8_execution(compiler::compile(qg, hw, st), hw, qg, ids_input({2, 0}));
  ASSERT_EQ(c.status, "bit-exact");
  const std::vector<std::int64_t> sim_codes(c.raw.at("e").i.begin(), c.raw.at("e").i.end());
  EXPECT_EQ(sim_codes, std::vector<std::int64_t>(want.begin(), want.end()));
}

TEST(Int8Gather, EmbeddingPositionAndProjectionAreBitExactUnderEveryStrategy) {
  // Seeded calibration and input draw the ids uniform in [0, 4) (the table's rows).
  npu::test::expect_int8_bit_exact_under_every_strategy(embedding(true), edge(), 3, 11);
}

TEST(Int8Gather, SeededIdsLieInTheTableAndAreTheSimulateInputSeedsDraw) {
  // generate_calibration draws ids with uniform_int_distribution(0, V - 1) over the same
  // mt19937_64 as `npu simulate --input-seed` (integer_inputs.hpp); V = 4 rows here.
  const compiler::Graph g = embedding(false);
  const auto s = compiler::generate_calibration(g, 5, 3);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::int64_t> ui(0, 3);
  const std::vector<std::int64_t> first{ui(rng), ui(rng)};
  EXPECT_EQ(s.at(0).at("ids").i, first);
  for (const auto& sample : s) {
    ASSERT_EQ(sample.at("ids").type, compiler::ElemType::Int64);
    for (std::int64_t v : sample.at("ids").i) EXPECT_TRUE(v >= 0 && v < 4) << v;
  }
}

TEST(Int8Gather, ACalibrationIdOutsideTheTableNamesTheFileTheInputAndTheRange) {
  const compiler::Graph g = embedding(false);
  const std::string dir = (std::filesystem::temp_directory_path() / "npu_int8_gather_calib").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/s0");
  compiler::RefTensor ids = ids_input({1, 4}).at("ids");  // 4 is one past the last row
  compiler::write_tensor_pb(dir + "/s0/ids.pb", ids, "ids");
  try {
    compiler::read_calibration_dir(g, dir);
    FAIL() << "an id of 4 for a 4-row table was accepted";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(dir + "/s0/ids.pb: error: graph input 'ids': value 4 at element 1 is outside [0, 4), the rows "
                           "of table 'table' that Gather 'gather' reads"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("fix: write ids in [0, 4)"), std::string::npos) << m;
  }
  // A float file for the integer input is refused too, naming the input and the type to write.
  compiler::RefTensor f;
  f.shape = {1, 2};
  f.f = {1.0f, 2.0f};
  compiler::write_tensor_pb(dir + "/s0/ids.pb", f, "ids");
  try {
    compiler::read_calibration_dir(g, dir);
    FAIL() << "float ids were accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("holds float data, and the input is integer"), std::string::npos) << e.what();
  }
}
