// A Gather of a constant table by indices the program computes (issue 28 kind 8: a detection
// head gathers its anchors by TopK indices plus per-level offsets) runs on the NPU as gather
// LOADs that read the indices as fp32 values (index_float=4, docs/isa.md "LOAD gather"), with
// data under every strategy. An index outside the table stops the run naming it (ONNX Gather:
// an error; the NPU does not clamp). Values derived by hand from the ONNX definitions.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/isa/check/sram_race_check.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::testing::GraphBuilder;

// x [6] fp32 -> Cast to int64 (trunc, on the vector unit) -> Add [1, 1, 1, 1, 1, 1] -> Gather of
// table [6, 2] (row k = {10k, 10k + 1}) along axis 0 -> y [6, 2].
GraphBuilder computed_gather_graph() {
  GraphBuilder b("computed_gather");
  b.input("x", {6});
  b.add_tensor("t", {6}).type = ElemType::Int64;
  b.node("trunc", "Cast", {"x"}, {"t"}).attrs["to"] = std::int64_t(7);  // INT64
  b.add_tensor("k", {6}).type = ElemType::Int64;
  b.node("plus_one", "Add", {"t", b.ints("ones", {1, 1, 1, 1, 1, 1})}, {"k"});
  compiler::Tensor& table = b.add_tensor("table", {6, 2}, true);
  for (int r = 0; r < 6; ++r) table.float_data.insert(table.float_data.end(), {10.0f * r, 10.0f * r + 1});
  b.add_tensor("y", {6, 2});
  b.node("gather", "Gather", {"table", "k"}, {"y"}).attrs["axis"] = std::int64_t(0);
  b.output("y");
  return b;
}

TEST(ComputedGatherData, AConstantTableGatheredByIndicesAnNpuLayerComputedWithHandDerivedValues) {
  const GraphBuilder b = computed_gather_graph();
  // trunc(x) = [0, 2, -1, 4, 1, -5]; + 1 = [1, 3, 0, 5, 2, -4]; -4 counts from the end: row 2.
  const std::vector<float> x = {0.0f, 2.7f, -1.2f, 4.0f, 1.5f, -5.9f};
  const std::vector<float> want = {10, 11, 30, 31, 0, 1, 50, 51, 20, 21, 20, 21};
  compiler::RefTensorMap in;
  in["x"].shape = {6};
  in["x"].f = x;
  EXPECT_EQ(compiler::run_reference(b.g, in).at("y").f, want) << "the reference disagrees with the hand values";
  const HwConfig hw = test::fp32_hw();
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
    bool gathers = false;
    for (const auto& L : c.lowered.layers) {
      EXPECT_NE(L.kind, compiler::LayerKind::Host) << s << " " << L.name;
      gathers = gathers || (L.kind == compiler::LayerKind::Gather && L.gather_index_float);
    }
    EXPECT_TRUE(gathers) << s << ": no gather layer reads computed (fp32) indices";
    const auto r = test::run_forked(c, hw, {{"x", x}}, true);
    ASSERT_TRUE(r.ok) << s << ": " << r.error;
    EXPECT_EQ(r.outputs.at("y"), want) << s;
  }
}

TEST(ComputedGatherData, AnIndexOutsideTheTableStopsTheRunNamingIt) {
  const GraphBuilder b = computed_gather_graph();
  // x[3] = 6.0: trunc 6, + 1 = 7, outside [-6, 6) (row 3 of the indices).
  const std::vector<float> x = {0.0f, 1.0f, 2.0f, 6.0f, 0.0f, 0.0f};
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  const auto r = test::run_forked(c, hw, {{"x", x}}, true);
  ASSERT_FALSE(r.ok) << "an index past the table ran";
  EXPECT_NE(r.error.find("index 7 (row 3) is outside the table's 6 rows"), std::string::npos) << r.error;
}

}  // namespace

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::testing::GraphBuilder;

// d [5, 2] -> Relu -> r (an activation table); x [3] -> Cast int64 -> k [3];
// Gather(r, k, axis 0) -> g [3, 2]; Reshape(k, [3, 1]) -> GatherND(r, .) -> nd [3, 2].
GraphBuilder activation_table_graph() {
  GraphBuilder b("activation_table_gather");
  b.input("d", {5, 2});
  b.input("x", {3});
  b.add_tensor("r", {5, 2});
  b.node("relu", "Relu", {"d"}, {"r"});
  b.add_tensor("k", {3}).type = ElemType::Int64;
  b.node("trunc", "Cast", {"x"}, {"k"}).attrs["to"] = std::int64_t(7);  // INT64
  b.add_tensor("g", {3, 2});
  b.node("gather", "Gather", {"r", "k"}, {"g"}).attrs["axis"] = std::int64_t(0);
  b.add_tensor("k31", {3, 1}).type = ElemType::Int64;
  b.node("as_tuples", "Reshape", {"k", b.ints("shape31", {3, 1})}, {"k31"});
  b.add_tensor("nd", {3, 2});
  b.node("gather_nd", "GatherND", {"r", "k31"}, {"nd"});
  b.output("g");
  b.output("nd");
  return b;
}

TEST(ComputedGatherData, GatherAndGatherNDOfAnActivationByComputedIndicesWithHandDerivedValues) {
  const GraphBuilder b = activation_table_graph();
  const std::vector<float> d = {-1, 2, 3, -4, 5, 6, -7, 8, 9, 10};
  // relu(d) rows: [0, 2], [3, 0], [5, 6], [0, 8], [9, 10]; trunc(x) = [4, -4, 1]: rows 4, 1
  // (-4 + 5), 1 -> [9, 10, 3, 0, 3, 0] for Gather and for GatherND (tuples of one index).
  const std::vector<float> x = {4.2f, -4.9f, 1.0f};
  const std::vector<float> want = {9, 10, 3, 0, 3, 0};
  compiler::RefTensorMap in;
  in["d"].shape = {5, 2};
  in["d"].f = d;
  in["x"].shape = {3};
  in["x"].f = x;
  const compiler::RefTensorMap ref = compiler::run_reference(b.g, in);
  EXPECT_EQ(ref.at("g").f, want) << "the reference Gather disagrees with the hand values";
  EXPECT_EQ(ref.at("nd").f, want) << "the reference GatherND disagrees with the hand values";
  const HwConfig hw = test::fp32_hw();
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
    int gathers = 0;
    for (const auto& L : c.lowered.layers) {
      EXPECT_NE(L.kind, compiler::LayerKind::Host) << s << " " << L.name;
      gathers += L.kind == compiler::LayerKind::Gather && L.gather_index_float ? 1 : 0;
    }
    EXPECT_EQ(gathers, 2) << s << ": Gather and GatherND are not both gather LOADs of computed indices";
    const auto r = test::run_forked(c, hw, {{"d", d}, {"x", x}}, true);
    ASSERT_TRUE(r.ok) << s << ": " << r.error;
    EXPECT_EQ(r.outputs.at("g"), want) << s;
    EXPECT_EQ(r.outputs.at("nd"), want) << s;
  }
}

TEST(ComputedGatherData, GatherNDWithLongerIndexTuplesStaysOnTheHostNamingWhy) {
  GraphBuilder b("gather_nd_pairs");
  b.input("d", {5, 2});
  b.add_tensor("r", {5, 2});
  b.node("relu", "Relu", {"d"}, {"r"});
  b.input("pairs", {3, 2});
  b.g.tensors.at("pairs").type = ElemType::Int64;
  b.add_tensor("nd", {3});
  b.node("gather_nd", "GatherND", {"r", "pairs"}, {"nd"});
  b.output("nd");
  const auto c = compiler::compile(b.g, test::fp32_hw(), compiler::builtin_strategy("none"));
  bool named = false;
  for (const auto& L : c.report.layers)
    named = named || (L.placement == "host" && L.note.find("index tuples of length 2") != std::string::npos);
  EXPECT_TRUE(named) << "GatherND with [row, column] pairs is not refused with its reason";
}

}  // namespace

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::testing::GraphBuilder;

// One index a row from x [n] (Cast to int64 -> Reshape [n, 1] -> Expand [n, 2]), as
// MultiScaleRoIAlign's `result[idx] = rows` exports. Returns the expanded indices' name.
std::string row_indices(GraphBuilder& b, const std::string& x, std::int64_t n) {
  b.add_tensor(x + ".k", {n}).type = ElemType::Int64;
  b.node(x + ".trunc", "Cast", {x}, {x + ".k"}).attrs["to"] = std::int64_t(7);  // INT64
  b.add_tensor(x + ".k1", {n, 1}).type = ElemType::Int64;
  b.node(x + ".rows", "Reshape", {x + ".k", b.ints(x + ".shape", {n, 1})}, {x + ".k1"});
  b.add_tensor(x + ".kx", {n, 2}).type = ElemType::Int64;
  b.node(x + ".expand", "Expand", {x + ".k1", b.ints(x + ".to", {n, 2})}, {x + ".kx"});
  return x + ".kx";
}

// zeros [4, 2] (a constant) <- rows Relu(u [2, 2]) at x [2]; then <- rows w [1, 2] at y [1].
GraphBuilder scatter_graph() {
  GraphBuilder b("row_scatter");
  b.input("x", {2});
  b.input("u", {2, 2});
  b.input("y", {1});
  b.input("w", {1, 2});
  compiler::Tensor& zeros = b.add_tensor("zeros", {4, 2}, true);
  zeros.float_data.assign(8, 0.0f);
  b.add_tensor("ru", {2, 2});
  b.node("relu", "Relu", {"u"}, {"ru"});
  b.add_tensor("s1", {4, 2});
  b.node("scatter1", "ScatterElements", {"zeros", row_indices(b, "x", 2), "ru"}, {"s1"}).attrs["axis"] =
      std::int64_t(0);
  b.add_tensor("s2", {4, 2});
  b.node("scatter2", "ScatterElements", {"s1", row_indices(b, "y", 1), "w"}, {"s2"}).attrs["axis"] = std::int64_t(0);
  b.output("s1");
  b.output("s2");
  return b;
}

std::map<std::string, std::vector<float>> scatter_inputs(std::vector<float> x) {
  return {{"x", x}, {"u", {1, -2, 3, 4}}, {"y", {0.5f}}, {"w", {7, 8}}};
}

TEST(ScatterRowsData, ScatterElementsOfWholeRowsIntoAConstantAndAnActivationWithHandDerivedValues) {
  const GraphBuilder b = scatter_graph();
  // x = [3.9, -3.2] -> trunc [3, -3] -> rows 3 and 1 (-3 + 4); relu(u) = [1, 0], [3, 4]:
  // s1 = [0, 0], [3, 4], [0, 0], [1, 0]. y = 0.5 -> row 0 <- [7, 8]: s2 = [7, 8], [3, 4], [0, 0], [1, 0].
  const auto in = scatter_inputs({3.9f, -3.2f});
  const std::vector<float> s1 = {0, 0, 3, 4, 0, 0, 1, 0}, s2 = {7, 8, 3, 4, 0, 0, 1, 0};
  compiler::RefTensorMap ref_in;
  for (const auto& [name, v] : in) {
    ref_in[name].shape = b.g.tensors.at(name).shape;
    ref_in[name].f = v;
  }
  const compiler::RefTensorMap ref = compiler::run_reference(b.g, ref_in);
  EXPECT_EQ(ref.at("s1").f, s1) << "the reference ScatterElements disagrees with the hand values";
  EXPECT_EQ(ref.at("s2").f, s2);
  const HwConfig hw = test::fp32_hw();
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
    int scatters = 0;
    for (const auto& L : c.lowered.layers) {
      EXPECT_NE(L.kind, compiler::LayerKind::Host) << s << " " << L.name;
      EXPECT_NE(L.op_type, "Expand") << s << ": the Expand of the indices is still a layer";
      scatters += L.scatter ? 1 : 0;
    }
    EXPECT_EQ(scatters, 2) << s;
    const auto r = test::run_forked(c, hw, in, true);
    ASSERT_TRUE(r.ok) << s << ": " << r.error;
    EXPECT_EQ(r.outputs.at("s1"), s1) << s;
    EXPECT_EQ(r.outputs.at("s2"), s2) << s;
  }
}

TEST(ScatterRowsData, AnIndexOutsideTheDataStopsTheRunNamingItAndOtherFormsSayWhy) {
  GraphBuilder b = scatter_graph();
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  const auto r = test::run_forked(c, hw, scatter_inputs({1.0f, 4.0f}), true);  // row 1 of the indices: 4 of 4 rows
  ASSERT_FALSE(r.ok) << "an index past the data ran";
  EXPECT_NE(r.error.find("STORE scatter: index 4 (row 1) is outside the table's 4 rows"), std::string::npos) << r.error;
  // reduction add into the constant: not a row store; the constant data keeps it on the host.
  for (compiler::Node& n : b.g.nodes)
    if (n.name == "scatter1") n.attrs["reduction"] = std::string("add");
  const auto h = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  bool host = false;
  for (const auto& n : h.lowered.host_nodes) host = host || (n.name == "scatter1" && n.reason.find("of a constant") != std::string::npos);
  EXPECT_TRUE(host) << "a ScatterElements with reduction add into a constant left the host";
}

}  // namespace

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

TEST(ScatterRowsData, ManyStepsReuseTheirIndexSlotsOnlyAfterTheStoresReadThemWithHandDerivedValues) {
  // Rows of 16384 fp32: one row a step, so the index slots are reused (a scatter STORE reads its
  // indices on the store queue; the program check finds a race if a LOAD can overwrite them
  // first). zeros [6, 16384] <- u [5, 16384] (row k all k + 1) at x = [5, 0, 2, -1, 3]:
  // -1 is row 5 again, which keeps the later row (update 3: 4). Rows: 2, 0, 3, 5, 0, 4.
  constexpr std::int64_t kRow = 16384;
  GraphBuilder b("row_scatter_steps");
  b.input("x", {5});
  b.input("u", {5, kRow});
  compiler::Tensor& zeros = b.add_tensor("zeros", {6, kRow}, true);
  zeros.float_data.assign(6 * kRow, 0.0f);
  b.add_tensor("x.k", {5}).type = compiler::ElemType::Int64;
  b.node("x.trunc", "Cast", {"x"}, {"x.k"}).attrs["to"] = std::int64_t(7);
  b.add_tensor("x.k1", {5, 1}).type = compiler::ElemType::Int64;
  b.node("x.rows", "Reshape", {"x.k", b.ints("x.shape", {5, 1})}, {"x.k1"});
  b.add_tensor("x.kx", {5, kRow}).type = compiler::ElemType::Int64;
  b.node("x.expand", "Expand", {"x.k1", b.ints("x.to", {5, kRow})}, {"x.kx"});
  b.add_tensor("s", {6, kRow});
  b.node("scatter", "ScatterElements", {"zeros", "x.kx", "u"}, {"s"}).attrs["axis"] = std::int64_t(0);
  b.output("s");
  std::vector<float> u;
  for (int k = 0; k < 5; ++k) u.insert(u.end(), kRow, float(k + 1));
  std::vector<float> want;
  for (float v : {2.0f, 0.0f, 3.0f, 5.0f, 0.0f, 4.0f}) want.insert(want.end(), kRow, v);
  const HwConfig hw = test::fp32_hw();
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
    for (const isa::CheckIssue& i : isa::check_sram_races(c.program)) ADD_FAILURE() << s << ": " << i.message;
    const auto r = test::run_forked(c, hw, {{"x", {5, 0, 2, -1, 3}}, {"u", u}}, true);
    ASSERT_TRUE(r.ok) << s << ": " << r.error;
    EXPECT_EQ(r.outputs.at("s"), want) << s;
  }
}

}  // namespace
