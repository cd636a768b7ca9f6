// Code generation on small hand-built networks: valid programs, exact planned bytes,
// zero-copy concat, separate layers in `none`, DDR bank skew, dependency tokens, errors.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

// conv1-bn1-relu1, maxpool, a residual block, two 1x1 convs with SiLU concatenated, a 2x
// nearest Resize, global pool, flatten, Gemm. Every lowering path in one graph.
Graph small_net() {
  GraphBuilder b("small");
  const std::string x = b.input("x", {1, 3, 32, 32});
  const std::string r1 = b.unary("relu1", "Relu", b.bn("bn1", b.conv("conv1", x, 16, 3, 1, 1)));
  const std::string p = b.maxpool("pool", r1, 3, 2, 1);
  const std::string r2 = b.unary("relu2", "Relu", b.binary("add", "Add", b.bn("bn2", b.conv("conv2", p, 16, 3, 1, 1)), p));
  const std::string s1 = b.silu("silu3", b.bn("bn3", b.conv("conv3", r2, 8, 1)));
  const std::string s2 = b.silu("silu4", b.bn("bn4", b.conv("conv4", r2, 8, 1)));
  const std::string c = b.concat("concat", {s1, s2});
  const std::string scales = b.constant("up.scales", {4}, 1, 1);
  const std::string up = "up.out";
  b.add_tensor(up, {1, 16, 32, 32});
  b.node("up", "Resize", {c, "", scales}, {up}).attrs["mode"] = std::string("nearest");
  b.output(b.global_avg_pool_flatten_gemm("head", up, 10));
  return b.g;
}

const std::vector<std::string>& strategies() {
  static const std::vector<std::string> s = builtin_strategy_names();
  return s;
}

CompileResult compile_small(const std::string& strategy, std::uint64_t sram = 1u << 20) {
  return compile(small_net(), testing::edge_like_hw(sram), builtin_strategy(strategy));
}

// An SRAM too small for some layers' smallest tile: the error names the first such layer and
// the capacity that fits every layer (the largest minimal need), so one raise is enough: at
// that capacity the network compiles, one byte less it does not; and the capacity it tells
// the user to set is one the config accepts (whole banks of whole granules) and compiles.
TEST(Codegen, TooSmallSramNamesTheCapacityThatFitsEveryLayer) {
  GraphBuilder b("grow");
  const std::string x = b.input("x", {1, 8, 16, 16});
  const std::string a = b.conv("small", x, 16, 3, 1, 1);   // 3x3, 8 -> 16
  b.output(b.conv("big", a, 64, 3, 1, 1));                  // 3x3, 16 -> 64: a larger minimal tile
  const Strategy st = builtin_strategy("none");
  const std::string edge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";
  HwConfig hw = load_hw_config(edge);
  // 512 B: not even the input-channel split's minimal tiles fit (small 576 B, big 960 B:
  // input band 1 ch x 3 rows x 16 -> 64 B x 2, weights 9 -> 64 B x 2, params 8 B per output
  // channel, output row 16 -> 64 B x 2, partial sums 16 x 4 = 64 B).
  hw.sram.capacity_bytes = 512;
  std::string msg;
  try {
    compile(b.g, hw, st);
  } catch (const ConfigError& e) {
    msg = e.what();
  }
  ASSERT_NE(msg.find("layer 'small' (Conv) cannot fit even one minimal tile"), std::string::npos) << msg;
  ASSERT_NE(msg.find("2 layers do not fit, the largest need is layer 'big' (Conv): "), std::string::npos) << msg;
  const std::string largest = "the largest need is layer 'big' (Conv): ";
  const std::uint64_t need = std::stoull(msg.substr(msg.find(largest) + largest.size()));
  EXPECT_EQ(need, 960u);
  hw.sram.capacity_bytes = need;
  EXPECT_NO_THROW(compile(b.g, hw, st)) << msg;
  hw.sram.capacity_bytes = need - 1;
  EXPECT_THROW(compile(b.g, hw, st), ConfigError);
  const std::string key = "increase sram.capacity to at least ";
  const std::size_t at = msg.find(key);
  ASSERT_NE(at, std::string::npos) << msg;
  const std::string set = std::to_string(std::stoull(msg.substr(at + key.size())));
  std::ifstream in(edge);
  std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  yaml.replace(yaml.find("capacity: 1 MiB"), 15, "capacity: " + set);
  const std::string path = ::testing::TempDir() + "/too_small_sram_set.yaml";
  std::ofstream(path) << yaml;
  HwConfig ok;
  ASSERT_NO_THROW(ok = load_hw_config(path)) << set;
  EXPECT_GE(ok.sram.capacity_bytes, need);
  EXPECT_NO_THROW(compile(b.g, ok, st)) << set;
}

TEST(Codegen, EveryStrategyGivesAValidProgramThatRoundTrips) {
  const HwConfig hw = testing::edge_like_hw();
  for (const auto& s : strategies()) {
    const CompileResult r = compile_small(s);
    const auto issues = isa::check_program(r.program, hw);
    for (const auto& i : issues) ADD_FAILURE() << s << ": instruction " << i.index << ": " << i.message;
    const std::string text = isa::write_program(r.program);
    EXPECT_EQ(isa::read_program(text, s + ".npuasm"), r.program) << s;
    EXPECT_EQ(r.program.strategy, s);
  }
}

TEST(Codegen, PlannedBytesAreExactlyWhatTheLoadsAndStoresMove) {
  for (const auto& s : strategies()) {
    const CompileResult r = compile_small(s);
    std::map<std::string, std::uint64_t> rd, wr;
    std::uint64_t total_rd = 0, total_wr = 0;
    for (const auto& ins : r.program.instructions) {
      if (ins.op != isa::Opcode::Load && ins.op != isa::Opcode::Store) continue;
      const std::uint64_t bytes = std::get<isa::DmaDesc>(ins.params).bytes();
      (ins.op == isa::Opcode::Load ? rd : wr)[ins.layer] += bytes;
      (ins.op == isa::Opcode::Load ? total_rd : total_wr) += bytes;
    }
    const LayerReport t = r.report.total();
    EXPECT_EQ(t.planned_read_bytes, total_rd) << s;
    EXPECT_EQ(t.planned_write_bytes, total_wr) << s;
    for (const auto& l : r.report.layers) {
      if (l.placement != "npu") continue;
      EXPECT_EQ(l.planned_read_bytes, rd[l.layer]) << s << " " << l.layer;
      EXPECT_EQ(l.planned_write_bytes, wr[l.layer]) << s << " " << l.layer;
      // (A layer in a depth-first stack never moves its on-chip input or output, and in a
      // depth-first program a layer outside any stack may read or write a tensor kept in SRAM
      // by keep-resident.)
      if (l.stack < 0 && s != "depth-first") {
        EXPECT_GE(l.planned_bytes(), l.compulsory_bytes()) << s << " " << l.layer;
      }
    }
  }
}

TEST(Codegen, EveryDmaNamesADeclaredTensorAndItsLayer) {
  const CompileResult r = compile_small("none");
  std::set<std::string> declared, layers;
  for (const auto& t : r.program.tensors) declared.insert(t.name);
  for (const auto& l : r.report.layers) layers.insert(l.layer);
  for (const auto& ins : r.program.instructions) {
    EXPECT_TRUE(layers.count(ins.layer)) << ins.layer;
    if (ins.op == isa::Opcode::Load || ins.op == isa::Opcode::Store) {
      EXPECT_TRUE(declared.count(ins.tensor)) << ins.tensor;
    }
  }
  std::map<std::string, isa::TensorKind> kind;
  for (const auto& t : r.program.tensors) kind[t.name] = t.kind;
  EXPECT_EQ(kind["x"], isa::TensorKind::Input);
  EXPECT_EQ(kind["conv1.weight"], isa::TensorKind::Weight);
  EXPECT_EQ(kind["bn1.scale_shift"], isa::TensorKind::Weight);
  EXPECT_EQ(kind["conv1.out"], isa::TensorKind::Intermediate);
  EXPECT_EQ(kind["head.fc.out"], isa::TensorKind::Output);
}

TEST(Codegen, NoneRunsBatchNormAndEveryActivationAsItsOwnStreamingLayer) {
  const CompileResult r = compile_small("none");
  std::map<std::string, const LayerReport*> by;
  for (const auto& l : r.report.layers) by[l.layer] = &l;
  ASSERT_TRUE(by.count("bn1") && by.count("relu1") && by.count("silu3.sigmoid") && by.count("silu3.mul"));
  EXPECT_EQ(by["bn1"]->kind, "act");
  EXPECT_EQ(by["silu3.sigmoid"]->kind, "act");
  EXPECT_EQ(by["silu3.mul"]->kind, "eltwise");
  EXPECT_EQ(by["add"]->kind, "eltwise");
  // BN over 16 x 32 x 32 int8: reads 16,384 B + scale/shift 16 x 2 x 4 = 128 B, writes 16,384 B.
  EXPECT_EQ(by["bn1"]->planned_read_bytes, 16384u + 128u);
  EXPECT_EQ(by["bn1"]->planned_write_bytes, 16384u);
  // The SiLU Mul reads x and sigmoid(x) (8 x 16 x 16 B each) once and writes once.
  EXPECT_EQ(by["silu3.mul"]->planned_read_bytes, 2u * 2048);
  EXPECT_EQ(by["silu3.mul"]->planned_write_bytes, 2048u);
  // Streaming layers move exactly their compulsory bytes.
  for (const char* n : {"bn1", "relu1", "silu3.sigmoid", "silu3.mul", "add", "relu2"})
    EXPECT_EQ(by[n]->planned_bytes(), by[n]->compulsory_bytes()) << n;
  // ACT ops in the program: scale_shift for BN, relu, sigmoid.
  std::set<std::string> ops;
  for (const auto& ins : r.program.instructions)
    if (ins.op == isa::Opcode::Act) ops.insert(isa::to_string(std::get<isa::ActParams>(ins.params).op));
  EXPECT_TRUE(ops.count("scale_shift") && ops.count("relu") && ops.count("sigmoid"));
}

TEST(Codegen, ConvBnActFusesIntoConvEpilogues) {
  const CompileResult r = compile_small("conv-bn-act");
  std::vector<std::string> kinds;
  for (const auto& l : r.report.layers) kinds.push_back(l.layer + ":" + l.kind);
  // conv1(+bn1+relu1), pool, conv2(+bn2), add, relu2, conv3(+bn3+silu), conv4(+bn4+silu),
  // up, head.pool, head.fc; the concat and the flatten have no code.
  EXPECT_EQ(kinds, (std::vector<std::string>{"conv1:conv", "pool:pool", "conv2:conv", "add:eltwise", "relu2:act",
                                             "conv3:conv", "conv4:conv", "up:resize", "head.pool:pool",
                                             "head.fc:gemm"}));
  // Every CONV of conv3 that writes its output (the last input-channel group where the tiler
  // split the input channels: the earlier ones accumulate, acc_out) applies bias and SiLU.
  int outputs = 0;
  for (const auto& ins : r.program.instructions)
    if (ins.op == isa::Opcode::Conv && ins.layer == "conv3" && !std::get<isa::ConvParams>(ins.params).acc_out) {
      const auto& e = std::get<isa::ConvParams>(ins.params).epilogue;
      EXPECT_TRUE(e.has_bias);
      EXPECT_EQ(e.act, isa::ActOp::Silu);
      ++outputs;
    }
  EXPECT_GT(outputs, 0);
  const CompileResult res = compile_small("residual");
  for (const auto& ins : res.program.instructions)
    if (ins.op == isa::Opcode::Conv && ins.layer == "conv2" && !std::get<isa::ConvParams>(ins.params).acc_out) {
      EXPECT_TRUE(std::get<isa::ConvParams>(ins.params).epilogue.has_residual);
      EXPECT_EQ(std::get<isa::ConvParams>(ins.params).epilogue.act, isa::ActOp::Relu);
    }
}

TEST(Codegen, ConcatIsZeroCopy) {
  const CompileResult r = compile_small("conv-bn-act");
  std::uint64_t base = 0, bytes = 0;
  for (const auto& t : r.program.tensors)
    if (t.name == "concat.out") base = t.ddr_addr, bytes = t.bytes;
  ASSERT_EQ(bytes, 16u * 16 * 16);
  std::uint64_t lo3 = UINT64_MAX, lo4 = UINT64_MAX;
  for (const auto& ins : r.program.instructions) {
    if (ins.op != isa::Opcode::Store) continue;
    const auto& d = std::get<isa::DmaDesc>(ins.params);
    if (ins.layer == "conv3") {
      EXPECT_EQ(ins.tensor, "concat.out");
      lo3 = std::min(lo3, d.ddr_addr);
    }
    if (ins.layer == "conv4") {
      EXPECT_EQ(ins.tensor, "concat.out");
      lo4 = std::min(lo4, d.ddr_addr);
    }
  }
  EXPECT_EQ(lo3, base);                // channels 0..7
  EXPECT_EQ(lo4, base + 8u * 16 * 16);  // channels 8..15 start after 8 x 16 x 16 B
}

TEST(Codegen, ResizeReadsInputOnceAndWritesOutputOnce) {
  const CompileResult r = compile_small("conv-bn-act");
  for (const auto& l : r.report.layers)
    if (l.layer == "up") {
      EXPECT_EQ(l.planned_read_bytes, 16u * 16 * 16);
      EXPECT_EQ(l.planned_write_bytes, 16u * 32 * 32);
    }
}

TEST(Codegen, TensorsStartInDifferentBanks) {
  // Edge-like DDR4: bank stride 8 KiB (row bytes), 16 bank slots: the k-th tensor starts at
  // bank slot k mod 16, so a layer's input, weights and output never share a start bank.
  const CompileResult r = compile_small("none");
  for (std::size_t k = 0; k < r.program.tensors.size(); ++k)
    EXPECT_EQ((r.program.tensors[k].ddr_addr / 8192) % 16, k % 16) << r.program.tensors[k].name;
}

TEST(Codegen, NoLoadOfATensorBeforeItsStoresAreFenced) {
  // Codegen's own fences (cross-layer pipelining off): a STORE to T must be followed by a
  // store-queue SYNC pushing st2ld and a LOAD waiting st2ld before any LOAD of T. With
  // pipelining the fences become precise waits; the DDR data-flow check proves those.
  CompileOptions fenced;
  fenced.pipeline = false;
  for (const auto& s : strategies()) {
    EXPECT_TRUE(isa::check_dataflow(compile_small(s).program).empty()) << s;
    const CompileResult r = compile(small_net(), testing::edge_like_hw(), builtin_strategy(s), fenced);
    std::set<std::string> dirty, fenced;
    for (const auto& ins : r.program.instructions) {
      const bool pushes_st2ld = ins.op == isa::Opcode::Sync && std::get<isa::SyncParams>(ins.params).queue == isa::Queue::Store &&
                                !ins.push.empty();
      if (ins.op == isa::Opcode::Store) dirty.insert(ins.tensor);
      if (pushes_st2ld) {
        fenced.insert(dirty.begin(), dirty.end());
        dirty.clear();
      }
      if (ins.op == isa::Opcode::Load) {
        for (const auto& t : ins.wait)
          if (t == isa::Token{isa::Queue::Store, isa::Queue::Load}) fenced.clear();
        EXPECT_FALSE(dirty.count(ins.tensor) || fenced.count(ins.tensor)) << s << ": LOAD of " << ins.tensor;
      }
    }
  }
}

TEST(Codegen, SameInputsGiveIdenticalPrograms) {
  for (const auto& s : strategies())
    EXPECT_EQ(isa::write_program(compile_small(s).program), isa::write_program(compile_small(s).program)) << s;
}

TEST(Codegen, LayerThatCannotFitAMinimalTileNamesLayerBytesAndFix) {
  // conv1's whole-input-channel minimal tile (1 output channel x 1 output row x 3 input
  // channels) needs 992 B, so it is split along input channels; the split's minimal tile (1
  // input channel), 64-B aligned: input band 1 ch x 3 rows x 32 = 96 B x 2 slots (0, 128),
  // weights 9 B x 2 (256, 320), params 16 ch x 8 B = 128 B (384), output 32 B x 2 (512, 576),
  // int32 partial sums 32 x 4 = 128 B (640): ends at 768 B > 512 B.
  try {
    compile_small("none", 512);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("edge-like.yaml: error: layer 'conv1' (Conv) cannot fit even one minimal tile in SRAM"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("needs 768 bytes (one output channel x one output row x one input channel, its input channels "
                     "split), sram.capacity is 512 bytes"),
              std::string::npos)
        << m;
    // The advice is at least the size at which no layer needs a split: conv1's 992 B.
    const std::string key = "increase sram.capacity to at least ";
    ASSERT_NE(m.find(key), std::string::npos) << m;
    EXPECT_GE(std::stoull(m.substr(m.find(key) + key.size())), 992u) << m;
    EXPECT_NE(m.find("increase sram.capacity"), std::string::npos) << m;
  }
}

TEST(Codegen, HostNodesBecomeOneHostInstructionAndTheNpuResumes) {
  GraphBuilder b("with_host");
  const std::string c = b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1);
  const std::string t = "t.out";
  b.add_tensor(t, {1, 4, 8, 8});
  b.node("lpnorm", "LpNormalization", {c}, {t});  // no NPU lowering: host
  const std::string s = b.unary("sig", "Sigmoid", t);  // reads a host result: NPU again
  b.output(s);
  const CompileResult r = compile(b.g, testing::edge_like_hw(), builtin_strategy("none"));
  ASSERT_EQ(r.report.layers.size(), 3u);
  EXPECT_EQ(r.report.layers[0].layer, "conv");
  EXPECT_EQ(r.report.layers[1].placement, "host");
  EXPECT_EQ(r.report.layers[1].covers, (std::vector<std::string>{"lpnorm"}));
  // The host reads conv.out and writes t.out: 4 x 8 x 8 = 256 B each (int8).
  EXPECT_EQ(r.report.layers[1].note,
            "host DDR rd 256 B wr 256 B (analytic); LpNormalization 'lpnorm': op LpNormalization has no NPU lowering");
  EXPECT_EQ(r.report.layers[2].placement, "npu");
  EXPECT_EQ(r.report.layers[2].layer, "sig");
  int hosts = 0;
  for (const auto& ins : r.program.instructions) {
    if (ins.op != isa::Opcode::Host) continue;
    ++hosts;
    const auto& h = std::get<isa::HostParams>(ins.params);
    EXPECT_EQ(h.rd, 256u);
    EXPECT_EQ(h.wr, 256u);
    EXPECT_EQ(h.nodes, 1);
    // Edge preset host model: 8 GB/s, 19.2 GMAC/s; 256 output elements = 256 ops.
    // max(512 B / 8 B/ns = 64 ns, 256 / 19.2 per ns = 13.3 ns) = 64 ns = 64 cycles at 1 GHz.
    EXPECT_EQ(h.cycles, 64u);
  }
  EXPECT_EQ(hosts, 1);
  EXPECT_TRUE(isa::check_program(r.program, testing::edge_like_hw()).empty());
}

TEST(Codegen, ReportCsvAndJson) {
  const CompileResult r = compile_small("conv-bn-act");
  const std::string csv = report_csv(r.report);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "layer,op,kind,placement,covers,macs,compulsory_read_bytes,compulsory_write_bytes,compulsory_bytes,"
            "planned_read_bytes,planned_write_bytes,planned_bytes,planned_over_compulsory,tile,loop_order,steps,"
            "sram_bytes,compute_ns,memory_ns,bound,note,stack,band_rows,overlap,recompute_macs,weights");
  EXPECT_NE(csv.find("\nconv1,Conv,conv,npu,conv1;bn1;relu1,"), std::string::npos);
  EXPECT_NE(csv.find("\nTOTAL,"), std::string::npos);
  const std::string json = report_json(r.report);
  EXPECT_NE(json.find("\"strategy\": \"conv-bn-act\""), std::string::npos);
  EXPECT_NE(json.find("\"total\""), std::string::npos);
  // conv1 MACs: 16 x 32 x 32 x 3 x 3 x 3 = 442,368.
  EXPECT_EQ(r.report.layers[0].macs, 442368u);
}

}  // namespace
}  // namespace npu::compiler
