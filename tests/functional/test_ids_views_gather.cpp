// Token ids that reach the embedding Gather through value-preserving views (an HF export's
// Cast(to int64), Reshape, Slice of input_ids): the gather LOAD reads the graph input's int32
// ids in DDR (index_float 0), in fp32 and in int8 (docs/functional.md "Integer graph inputs").
// Before, only Reshape-like aliases were followed: a Cast or Slice made the ids "computed", so
// an fp32 run read the int32 words as fp32 ("not an integer") and int8 refused the Gather.
// Every expected row is picked by hand from the tables below.
#include <gtest/gtest.h>

#include <random>

#include "functional_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/run/simulate_data.hpp"
#include "npu/sim/verify/verify.hpp"

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::testing::GraphBuilder;

enum class Path { Direct, Cast, Reshape, Slice, CastReshape };

const char* name(Path p) {
  switch (p) {
    case Path::Direct: return "direct";
    case Path::Cast: return "Cast(int64)";
    case Path::Reshape: return "Reshape";
    case Path::Slice: return "Slice";
    case Path::CastReshape: return "Cast(int32) then Reshape";
  }
  return "?";
}

const Path kPaths[] = {Path::Direct, Path::Cast, Path::Reshape, Path::Slice, Path::CastReshape};

// ids int64 [1, 3] -> `path` -> k (the ids, or ids[:, 1:3] for Slice) -> Gather(table, k, axis 0)
// -> y. Slice keeps ids[0, 1:3]; every other path keeps all three.
GraphBuilder ids_graph(Path path, const std::vector<std::int64_t>& table_shape, const std::vector<float>& table) {
  GraphBuilder b("ids_" + std::to_string(int(path)));
  b.input("ids", {1, 3});
  b.g.tensors.at("ids").type = ElemType::Int64;
  std::string k = "ids";
  std::vector<std::int64_t> ks = {1, 3};
  auto step = [&](const std::string& out, std::vector<std::int64_t> shape, ElemType type) -> compiler::Tensor& {
    compiler::Tensor& t = b.add_tensor(out, shape);
    t.type = type;
    k = out;
    ks = std::move(shape);
    return t;
  };
  if (path == Path::Cast) {
    b.node("cast", "Cast", {k}, {"c"}).attrs["to"] = std::int64_t(7);  // INT64
    step("c", ks, ElemType::Int64);
  } else if (path == Path::CastReshape) {
    b.node("cast", "Cast", {k}, {"c"}).attrs["to"] = std::int64_t(6);  // INT32
    step("c", ks, ElemType::Int32);
    b.node("reshape", "Reshape", {k, b.ints("flat", {3})}, {"r"});
    step("r", {3}, ElemType::Int32);
  } else if (path == Path::Reshape) {
    b.node("reshape", "Reshape", {k, b.ints("flat", {3})}, {"r"});
    step("r", {3}, ElemType::Int64);
  } else if (path == Path::Slice) {
    b.node("slice", "Slice", {k, b.ints("starts", {1}), b.ints("ends", {3}), b.ints("axes", {1})}, {"s"});
    step("s", {1, 2}, ElemType::Int64);
  }
  compiler::Tensor& t = b.add_tensor("table", table_shape, true);
  t.float_data = table;
  std::vector<std::int64_t> ys = ks;
  ys.push_back(table_shape[1]);
  b.add_tensor("y", ys);
  b.node("gather", "Gather", {"table", k}, {"y"}).attrs["axis"] = std::int64_t(0);
  b.output("y");
  return b;
}

// Table [6, 2]: row r = {10 r, 10 r + 1}.
std::vector<float> tens_table() {
  std::vector<float> v;
  for (int r = 0; r < 6; ++r) v.insert(v.end(), {10.0f * r, 10.0f * r + 1});
  return v;
}

TEST(IdsViewsGather, Fp32ReadsTheGraphInputsInt32IdsThroughEveryViewWithHandPickedRows) {
  // ids = [5, 0, 3]: rows 5, 0, 3 = 50 51, 0 1, 30 31; Slice keeps [0, 3]: 0 1, 30 31.
  const std::vector<float> all = {50, 51, 0, 1, 30, 31}, sliced = {0, 1, 30, 31};
  const HwConfig hw = test::fp32_hw();
  for (Path p : kPaths) {
    const GraphBuilder b = ids_graph(p, {6, 2}, tens_table());
    const std::vector<float>& want = p == Path::Slice ? sliced : all;
    compiler::RefTensorMap in;
    in["ids"].shape = {1, 3};
    in["ids"].type = ElemType::Int64;
    in["ids"].i = {5, 0, 3};
    EXPECT_EQ(compiler::run_reference(b.g, in).at("y").f, want) << name(p) << ": the reference disagrees";
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
    int int32_gathers = 0;
    for (const auto& L : c.lowered.layers) {
      EXPECT_NE(L.kind, compiler::LayerKind::Host) << name(p) << " " << L.name;
      int32_gathers += L.kind == compiler::LayerKind::Gather && !L.gather_index_float;
    }
    EXPECT_EQ(int32_gathers, 1) << name(p) << ": the gather LOAD does not read the int32 ids";
    const auto r = test::run_forked(c, hw, {{"ids", {5, 0, 3}}}, true);
    ASSERT_TRUE(r.ok) << name(p) << ": " << r.error;
    EXPECT_EQ(r.outputs.at("y"), want) << name(p);
  }
}

TEST(IdsViewsGather, Int8GathersTheRowsThroughEveryViewBitExactWithHandDerivedCodes) {
  // Table [4, 3] of test_int8_gather.cpp, range [-1, 2]: s = 3/255, zp = -43, code = 85 v - 43:
  //   row 0 (-1, 0, 0.4) -> -128, -43, -9;  row 2 (0.2, -0.4, 1.2) -> -26, -77, 59;
  //   row 3 (2, -1, 0) -> 127, -128, -43.
  // ids = [3, 2, 0]: rows 3, 2, 0; Slice keeps [2, 0]: rows 2, 0. The output keeps the
  // table's grid, so the codes are the table's rows as they are.
  const std::vector<float> table = {-1.0f, 0.0f, 0.4f, 1.0f, 2.0f, 0.0f, 0.2f, -0.4f, 1.2f, 2.0f, -1.0f, 0.0f};
  const std::vector<std::int64_t> all = {127, -128, -43, -26, -77, 59, -128, -43, -9};
  const std::vector<std::int64_t> sliced = {-26, -77, 59, -128, -43, -9};
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const compiler::Strategy st = compiler::builtin_strategy("none");
  for (Path p : kPaths) {
    const compiler::Graph g = ids_graph(p, {4, 3}, table).g;
    const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 7, 4)).graph;
    compiler::RefTensor ids;
    ids.shape = {1, 3};
    ids.type = ElemType::Int64;
    ids.i = {3, 2, 0};
    const auto c = compiler::compile(qg, hw, st);
    for (const auto& L : c.lowered.layers)
      if (L.kind == compiler::LayerKind::Gather) {
        EXPECT_FALSE(L.gather_index_float) << name(p);
      }
    const sim::Int8Check r = sim::check_int8_execution(c, hw, qg, {{"ids", ids}});
    ASSERT_EQ(r.status, "bit-exact") << name(p);
    const std::vector<std::int64_t> codes(r.raw.at("y").i.begin(), r.raw.at("y").i.end());
    EXPECT_EQ(codes, p == Path::Slice ? sliced : all) << name(p);
  }
}

// The ids seed S gives: `npu simulate --with-data --input-seed S` (sim::data_inputs) and seeded
// calibration sample 0 (generate_calibration, seed S) both draw them from the table the input
// indexes (compiler::indexed_table), std::uniform_int_distribution(0, V - 1) over
// std::mt19937_64(S), row-major (docs/functional.md "Calibration": "the input npu simulate
// --input-seed S runs"). Before, simulate found only a Gather reading the input itself, so
// behind a Reshape it refused to draw, and with two tables it took the first, not the smallest.
TEST(IdsViewsGather, SimulateAndCalibrationDrawTheSameIdsThroughViews) {
  auto hand_draw = [](std::uint64_t seed, std::int64_t rows) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> ui(0, rows - 1);
    std::vector<std::int64_t> v(3);
    for (auto& x : v) x = ui(rng);
    return v;
  };
  auto simulate_ids = [](const compiler::Graph& g, std::uint64_t seed) {
    compiler::CompileResult c;
    c.graph = g;
    std::vector<std::string> notes;
    const std::vector<float> f = sim::data_inputs(c, {}, seed, &notes).at("ids");
    EXPECT_EQ(notes.size(), 1u);
    return std::vector<std::int64_t>(f.begin(), f.end());
  };
  for (Path p : kPaths) {
    const compiler::Graph g = ids_graph(p, {6, 2}, tens_table()).g;
    for (std::uint64_t seed : {1u, 9u}) {
      const std::vector<std::int64_t> want = hand_draw(seed, 6);
      EXPECT_EQ(simulate_ids(g, seed), want) << name(p) << " seed " << seed;
      EXPECT_EQ(compiler::generate_calibration(g, seed, 1).at(0).at("ids").i, want) << name(p) << " seed " << seed;
    }
  }
  // Two tables: the ids index a 6-row table directly and a 4-row one through a Reshape; both
  // draw in [0, 4), the rows valid for both.
  GraphBuilder b = ids_graph(Path::Direct, {6, 2}, tens_table());
  b.node("reshape", "Reshape", {"ids", b.ints("flat", {3})}, {"r"});
  b.add_tensor("r", {3}).type = ElemType::Int64;
  b.constant("small", {4, 2}, -1.0f, 1.0f);
  b.add_tensor("z", {3, 2});
  b.node("gather_small", "Gather", {"small", "r"}, {"z"}).attrs["axis"] = std::int64_t(0);
  b.output("z");
  const std::vector<std::int64_t> want = hand_draw(3, 4);
  EXPECT_EQ(simulate_ids(b.g, 3), want);
  EXPECT_EQ(compiler::generate_calibration(b.g, 3, 1).at(0).at("ids").i, want);
}

}  // namespace
