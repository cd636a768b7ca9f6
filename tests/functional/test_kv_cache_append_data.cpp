// The KV-cache append of an LLM decode step (ir/kv_cache.hpp, docs/compiler.md "KV cache"):
// present = Concat(past graph input, new K, axis=2) -> graph output. The past input lives
// inside present's DDR region (a kv_cache tensor), the append writes only the new rows, the
// reader of present reads it where it lies, and the values equal the reference interpreter's.
// A Concat that is not an append (past read elsewhere, past computed, shapes that disagree)
// stays a normal Concat and still computes the right values.
#include <gtest/gtest.h>

#include <algorithm>

#include "functional_test_util.hpp"
#include "npu/compiler/ir/kv_cache.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/assembly.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// B=1, Hkv=2, T=8 (past 7 + new 1), hd=4, d_model 8, fp32:
//   x [1,1,8] -> MatMul Wk [8,8] -> Reshape [1,1,2,4] -> Transpose (0,2,1,3) -> k_new [1,2,1,4]
//   Concat(cache_in [1,2,7,4], k_new, axis=2) -> cache_out [1,2,8,4] (graph output)
//   cache_out -> MatMul Wo [4,3] -> y [1,2,8,3] (graph output: a reader of the cache)
// Graph names are not "past"/"present": the rule goes by structure. `past_also_read`: cache_in
// also feeds a Relu whose output is a graph output (then it is no append).
compiler::Graph kv_decode(bool past_also_read = false) {
  GraphBuilder b("kv_decode");
  const std::string x = b.input("x", {1, 1, 8});
  const std::string past = b.input("cache_in", {1, 2, 7, 4});
  b.add_tensor("k", {1, 1, 8});
  b.node("k_proj", "MatMul", {x, b.constant("Wk", {8, 8}, -0.5f, 0.5f)}, {"k"});
  b.add_tensor("k4", {1, 1, 2, 4});
  b.node("k_reshape", "Reshape", {"k", b.ints("k_shape", {1, 1, 2, 4})}, {"k4"});
  b.add_tensor("k_new", {1, 2, 1, 4});
  b.node("k_transpose", "Transpose", {"k4"}, {"k_new"}).attrs["perm"] = std::vector<std::int64_t>{0, 2, 1, 3};
  b.add_tensor("cache_out", {1, 2, 8, 4});
  b.node("append", "Concat", {past, "k_new"}, {"cache_out"}).attrs["axis"] = std::int64_t(2);
  b.output("cache_out");
  b.add_tensor("y", {1, 2, 8, 3});
  b.node("read", "MatMul", {"cache_out", b.constant("Wo", {4, 3}, -0.5f, 0.5f)}, {"y"});
  b.output("y");
  if (past_also_read) b.output(b.unary("past_relu", "Relu", past));
  return b.g;
}

std::uint64_t dma_bytes(const isa::Program& p, isa::Opcode op, const std::string& layer, const std::string& tensor) {
  std::uint64_t n = 0;
  for (const isa::Instruction& in : p.instructions)
    if (in.op == op && (layer.empty() || in.layer == layer) && (tensor.empty() || in.tensor == tensor))
      n += std::get<isa::DmaDesc>(in.params).bytes();
  return n;
}

const isa::TensorDecl* decl(const isa::Program& p, const std::string& name) {
  for (const isa::TensorDecl& t : p.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(KvCacheAppend, AppendWritesOnlyTheNewRowsIntoPresentsRegion) {
  const compiler::Graph g = kv_decode();
  const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(), compiler::builtin_strategy("conv-bn-act"));
  ASSERT_EQ(c.lowered.kv_appends.size(), 1u);
  const isa::Program& p = c.program;
  // present [1,2,8,4] fp32 = 1*2*8*4*4 = 256 B, a kv_cache tensor; past has no region of its own.
  const isa::TensorDecl* present = decl(p, "cache_out");
  ASSERT_NE(present, nullptr);
  EXPECT_EQ(present->kind, isa::TensorKind::KvCache);
  EXPECT_EQ(present->bytes, 256u);
  EXPECT_EQ(decl(p, "cache_in"), nullptr);
  EXPECT_NE(isa::write_program(p).find(".tensor cache_out kind=kv_cache"), std::string::npos);
  // The append writes B*Hkv*1*hd*4 = 1*2*1*4*4 = 32 B into present, and reads 32 B (the new rows,
  // from the projection's output); it reads no past row (no LOAD of present in its layer).
  EXPECT_EQ(dma_bytes(p, isa::Opcode::Store, "append", "cache_out"), 32u);
  EXPECT_EQ(dma_bytes(p, isa::Opcode::Store, "append", ""), 32u);
  EXPECT_EQ(dma_bytes(p, isa::Opcode::Load, "append", ""), 32u);
  EXPECT_EQ(dma_bytes(p, isa::Opcode::Load, "append", "cache_out"), 0u);
  // Row 7 of block (b,h): byte offset ((b*Hkv + h)*T + 7)*hd*4 = 112 and 240 in present.
  std::vector<std::uint64_t> offsets;
  for (const isa::Instruction& in : p.instructions)
    if (in.op == isa::Opcode::Store && in.tensor == "cache_out")
      offsets.push_back(std::get<isa::DmaDesc>(in.params).ddr_addr - present->ddr_addr);
  EXPECT_EQ(offsets, (std::vector<std::uint64_t>{112, 240}));
  // Nothing else writes the cache; its reader loads it where it lies, all 256 B at least once.
  EXPECT_EQ(dma_bytes(p, isa::Opcode::Store, "", "cache_out"), 32u);
  EXPECT_GE(dma_bytes(p, isa::Opcode::Load, "", "cache_out"), 256u);
  // Compulsory: x 32 B + Wk 256 B + Wo 48 B + present 256 B (past 224 B read once + new 32 B
  // written once) + y 1*2*8*3*4 = 192 B = 784 B.
  EXPECT_EQ(isa::compulsory_bytes(p), 784u);
}

TEST(KvCacheAppend, ValuesEqualTheReferenceUnderEveryStrategy) {
  const compiler::Graph g = kv_decode();
  const HwConfig hw = test::fp32_hw();
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 1, 3).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + s);
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(s));
    ASSERT_EQ(c.lowered.kv_appends.size(), 1u);
    const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}, {"cache_in", in.at("cache_in").f}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    for (const char* out : {"cache_out", "y"}) {
      ASSERT_EQ(r.outputs.count(out), 1u) << out;
      EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-5) << out;
    }
  }
}

TEST(KvCacheAppend, PastReadElsewhereIsANormalConcatWithRightValues) {
  const compiler::Graph g = kv_decode(/*past_also_read=*/true);
  EXPECT_EQ(compiler::kv_append_problem(g, g.nodes[3]), "the past cache 'cache_in' is also read by another node");
  const HwConfig hw = test::fp32_hw();
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("conv-bn-act"));
  EXPECT_TRUE(c.lowered.kv_appends.empty());
  for (const isa::TensorDecl& t : c.program.tensors) EXPECT_NE(t.kind, isa::TensorKind::KvCache) << t.name;
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 1, 4).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}, {"cache_in", in.at("cache_in").f}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LE(test::rel_err(r.outputs.at("cache_out"), test::to_double(ref.at("cache_out").f)), 1e-5);
}

TEST(KvCacheAppend, ShapesThatDisagreeOrAComputedPastAreNoAppend) {
  compiler::Graph g = kv_decode();
  // present one row too long: [1,2,9,4] is not past 7 + new 1 rows.
  g.tensors.at("cache_out").shape = {1, 2, 9, 4};
  EXPECT_EQ(compiler::kv_append_problem(g, g.nodes[3]),
            "shapes disagree: past [1,2,7,4] + new [1,2,1,4] along axis 2 is not present [1,2,9,4]");
  g.tensors.at("cache_out").shape = {1, 2, 8, 4};
  g.nodes[3].attrs["axis"] = std::int64_t(3);
  EXPECT_EQ(compiler::kv_append_problem(g, g.nodes[3]), "axis 3 is not the sequence axis 2");
  g.nodes[3].attrs["axis"] = std::int64_t(-2);  // -2 is axis 2 of a 4-D tensor
  EXPECT_EQ(compiler::kv_append_problem(g, g.nodes[3]), "");
  // A past computed in the graph (not a graph input): a normal Concat.
  std::swap(g.nodes[3].inputs[0], g.nodes[3].inputs[1]);
  EXPECT_EQ(compiler::kv_append_problem(g, g.nodes[3]), "input 0 is not a graph input (the past cache)");
}

TEST(KvCacheAppend, TheImportPassReportsEachAppend) {
  compiler::Graph g = kv_decode();
  compiler::run_import_passes(g, {"recognise-kv-cache"}, "kv_decode");
  ASSERT_EQ(g.import_decisions.size(), 2u);  // the append, then the summary
  EXPECT_EQ(g.import_decisions[0].outcome, compiler::DecisionOutcome::Applied);
  EXPECT_EQ(g.import_decisions[0].label, "append: cache_in -> cache_out");
  EXPECT_NE(g.import_decisions[0].reason.find("2 (batch, head) block(s) of 7+1 rows of 4"), std::string::npos);
  EXPECT_EQ(g.import_decisions[1].verb, "recognised 1 KV-cache append(s)");
  compiler::Graph h = kv_decode(/*past_also_read=*/true);
  compiler::run_import_passes(h, {"recognise-kv-cache"}, "kv_decode");
  ASSERT_EQ(h.import_decisions.size(), 2u);
  EXPECT_EQ(h.import_decisions[0].outcome, compiler::DecisionOutcome::Declined);
  EXPECT_EQ(h.import_decisions[0].reason, "the past cache 'cache_in' is also read by another node (a normal Concat)");
}

}  // namespace

TEST(KvCacheAppend, AKvCacheDtypeOfAnotherWidthIsRefusedNotMiscounted) {
  // fp32 array (4 B) with kv_cache_dtype fp16 (2 B): the back end would count the cache at 4 B
  // an element, so compiling the append stops with an error naming the key and the fix.
  HwConfig hw = test::fp32_hw();
  hw.mac_array.kv_cache_dtype = KvCacheDType::Fp16;
  try {
    (void)compiler::compile(kv_decode(), hw, compiler::builtin_strategy("conv-bn-act"));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("mac_array.kv_cache_dtype"), std::string::npos) << m;
    EXPECT_NE(m.find("2 B"), std::string::npos) << m;
    EXPECT_NE(m.find("set it to 'same'"), std::string::npos) << m;
  }
  hw.mac_array.kv_cache_dtype = KvCacheDType::Same;  // the array's width: compiles
  EXPECT_EQ(compiler::compile(kv_decode(), hw, compiler::builtin_strategy("conv-bn-act")).lowered.kv_appends.size(), 1u);
}
