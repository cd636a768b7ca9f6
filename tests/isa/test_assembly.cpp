// .npuasm reader/writer: exact round trips, canonical form, every instruction and every
// optional field. Malformed input is in test_assembly_errors.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "npu/isa/assembly.hpp"

namespace npu::isa {
namespace {

std::string data_path(const std::string& name) { return std::string(NPU_SOURCE_DIR) + "/tests/isa/data/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The keys docs/isa.md lists for each mnemonic (required and optional), in canonical order.
const std::map<std::string, std::vector<std::string>> kDocumentedKeys = {
    {"LOAD", {"layer", "tensor", "ddr", "sram", "elem", "extent", "stride", "index", "table_rows", "wait", "push"}},
    {"STORE", {"layer", "tensor", "ddr", "sram", "elem", "extent", "stride", "wait", "push"}},
    {"CONV", {"layer", "in", "w", "out", "cin", "hin", "win", "cout", "kh", "kw", "stride", "pad", "dilation", "group",
              "acc_in", "acc_out", "in_scale", "bias", "scale_shift", "residual", "requant", "zp", "clamp", "act", "alpha", "beta", "wait",
              "push"}},
    {"GEMM", {"layer", "a", "b", "out", "m", "n", "k", "in_scale", "bias", "scale_shift", "residual", "requant", "zp",
              "clamp", "act", "alpha", "beta", "wait", "push"}},
    {"ACT", {"layer", "op", "in", "res", "out", "elems", "channels", "param", "requant", "zp", "clamp", "alpha", "beta",
             "wait", "push"}},
    {"ELTWISE", {"layer", "op", "a", "b", "out", "elems", "b_elems", "b_inner", "b_offset", "requant", "zp", "clamp",
                 "wait", "push"}},
    {"POOL", {"layer", "op", "in", "out", "c", "hin", "win", "kh", "kw", "stride", "pad", "requant", "zp", "clamp", "wait",
              "push"}},
    {"SYNC", {"layer", "queue", "wait", "push"}},
    {"HOST", {"layer", "cycles", "macs", "rd", "wr", "nodes", "wait", "push"}},
    {"MOVE", {"layer", "in", "out", "extent", "in_stride", "out_stride", "zero", "wait", "push"}},
};

// The sample programs in canonical form: every_instruction.npuasm (the version-1 format as
// first published), new_ops.npuasm (the ops, keys and instructions added up to HOST) and
// fusion_operands.npuasm (CONV/GEMM in_scale, ACT res) and int8_requant.npuasm (requant, zp,
// clamp; test_requant_operand.cpp) and move.npuasm (MOVE: a transpose and a nearest upsampling)
// and gather.npuasm (LOAD index= table_rows=: a token-embedding gather) and move_zero.npuasm
// (MOVE zero=: ConvTranspose's zero insertion) and conv_partial_sums.npuasm (CONV acc_out=
// acc_in=: a 1x1 conv, 4 -> 2 channels, in two input-channel groups of 2; test_conv_partial_sums.cpp).
const char* kSampleFiles[] = {"every_instruction.npuasm", "new_ops.npuasm",    "fusion_operands.npuasm",
                              "int8_requant.npuasm",      "move.npuasm",       "gather.npuasm",
                              "move_zero.npuasm",         "conv_partial_sums.npuasm"};

TEST(Assembly, EveryInstructionFileIsCanonicalAndRoundTrips) {
  const std::string text = slurp(data_path("every_instruction.npuasm"));
  ASSERT_FALSE(text.empty());
  const Program p = read_program(text, "every_instruction.npuasm");
  // The file is written in canonical form, so the writer must reproduce it byte for byte.
  EXPECT_EQ(write_program(p), text);
  EXPECT_EQ(read_program(write_program(p)), p);
}

TEST(Assembly, NewOpsFileIsCanonicalAndRoundTrips) {
  const std::string text = slurp(data_path("new_ops.npuasm"));
  ASSERT_FALSE(text.empty());
  const Program p = read_program(text, "new_ops.npuasm");
  EXPECT_EQ(write_program(p), text);
  EXPECT_EQ(read_program(write_program(p)), p);
}

TEST(Assembly, FusionOperandsFileIsCanonicalAndRoundTrips) {
  const std::string text = slurp(data_path("fusion_operands.npuasm"));
  ASSERT_FALSE(text.empty());
  const Program p = read_program(text, "fusion_operands.npuasm");
  EXPECT_EQ(write_program(p), text);
  EXPECT_EQ(read_program(write_program(p)), p);
}

TEST(Assembly, ProgramsWithoutTheFusionOperandsAreUnchanged) {
  // The two samples written before in_scale / res existed read with both off and are written
  // back byte for byte (the canonical text has no new key).
  for (const char* file : {"every_instruction.npuasm", "new_ops.npuasm"}) {
    const std::string text = slurp(data_path(file));
    const Program p = read_program(text, file);
    for (const Instruction& in : p.instructions) {
      if (const auto* c = std::get_if<ConvParams>(&in.params)) {
        EXPECT_FALSE(c->epilogue.has_in_scale) << file;
      }
      if (const auto* g = std::get_if<GemmParams>(&in.params)) {
        EXPECT_FALSE(g->epilogue.has_in_scale) << file;
      }
      if (const auto* a = std::get_if<ActParams>(&in.params)) {
        EXPECT_FALSE(a->has_residual) << file;
      }
    }
    const std::string out = write_program(p);
    EXPECT_EQ(out, text) << file;
    EXPECT_EQ(out.find("in_scale="), std::string::npos) << file;
    EXPECT_EQ(out.find(" res="), std::string::npos) << file;
  }
  // Built in memory with the defaults, the lines are those written before the fields existed.
  Program p;
  Instruction conv;
  conv.op = Opcode::Conv;
  ConvParams c;
  c.c_in = c.h_in = c.w_in = c.c_out = 4;
  c.epilogue.has_bias = true, c.epilogue.bias_addr = 0x80;
  conv.params = c;
  Instruction act;
  act.op = Opcode::Act;
  ActParams a;
  a.op = ActOp::Relu, a.in_addr = 0x10, a.out_addr = 0x20, a.elems = 64;
  act.params = a;
  p.instructions = {conv, act};
  EXPECT_EQ(write_program(p),
            ".npuasm 1\n.program dtype=int8\n"
            "CONV    in=0x0 w=0x0 out=0x0 cin=4 hin=4 win=4 cout=4 kh=1 kw=1 bias=0x80\n"
            "ACT     op=relu in=0x10 out=0x20 elems=64\n");
}

TEST(Assembly, FusionOperandsFileHasTheValuesWritten) {
  const Program p = read_program_file(data_path("fusion_operands.npuasm"));
  ASSERT_EQ(p.instructions.size(), 6u);
  // CONV: in_scale at 0x1000 beside the output epilogue (bias, relu).
  const auto& c = std::get<ConvParams>(p.instructions[1].params);
  EXPECT_TRUE(c.epilogue.has_in_scale);
  EXPECT_EQ(c.epilogue.in_scale_addr, 0x1000u);
  EXPECT_TRUE(c.epilogue.has_bias);
  EXPECT_EQ(c.epilogue.bias_addr, 0x1100u);
  EXPECT_EQ(c.epilogue.act, ActOp::Relu);
  EXPECT_FALSE(c.epilogue.has_residual);
  // GEMM: in_scale alone; it is not an output epilogue, so the epilogue counts as empty.
  const auto& g = std::get<GemmParams>(p.instructions[2].params);
  EXPECT_TRUE(g.epilogue.has_in_scale);
  EXPECT_EQ(g.epilogue.in_scale_addr, 0x1000u);
  EXPECT_TRUE(g.epilogue.empty());
  // ACT layer_norm(x + r): res at 0x0 (the conv's input), param and eps as without it.
  const auto& ln = std::get<ActParams>(p.instructions[3].params);
  EXPECT_EQ(ln.op, ActOp::LayerNorm);
  EXPECT_TRUE(ln.has_residual);
  EXPECT_EQ(ln.residual_addr, 0x0u);
  EXPECT_EQ(ln.in_addr, 0x800u);
  EXPECT_EQ(ln.out_addr, 0xc00u);
  EXPECT_EQ(ln.param_addr, 0x1800u);
  EXPECT_EQ(ln.alpha, 1e-5f);
  const auto& relu = std::get<ActParams>(p.instructions[4].params);
  EXPECT_TRUE(relu.has_residual);
  EXPECT_EQ(relu.residual_addr, 0x800u);
}

TEST(Assembly, TheConfigAProgramWasCompiledForRoundTrips) {
  // `.program ... hw= array= sram= dataflow=` (isa::CompiledFor): written in that order after
  // dtype, read back to the same program; a hand-written program without them writes none.
  isa::Program p;
  p.name = "net";
  p.strategy = "residual";
  p.compiled_for = isa::CompiledFor{"edge-npu-ddr4", 32, 16, 1048576, "output_stationary"};
  const std::string text = isa::write_program(p);
  EXPECT_NE(text.find(".program name=net strategy=residual dtype=int8 hw=edge-npu-ddr4 array=32x16 sram=1048576 "
                      "dataflow=output_stationary\n"),
            std::string::npos)
      << text;
  const isa::Program back = isa::read_program(text, "t.npuasm");
  EXPECT_EQ(back.compiled_for.hw, "edge-npu-ddr4");
  EXPECT_EQ(back.compiled_for.rows, 32);
  EXPECT_EQ(back.compiled_for.cols, 16);
  EXPECT_EQ(back.compiled_for.sram_bytes, 1048576u);
  EXPECT_EQ(back.compiled_for.dataflow, "output_stationary");
  EXPECT_EQ(back, p);
  isa::Program hand;
  hand.name = "net";
  EXPECT_EQ(isa::write_program(hand).find(" hw="), std::string::npos);
}

TEST(Assembly, FusionOperandsRoundTripFromMemory) {
  // in_scale on CONV and GEMM (alone and with every output step), res on every ACT op; the
  // canonical lines put in_scale first among the epilogue keys and res right after in.
  Program p;
  auto add = [&p](Opcode op, auto params) {
    Instruction in;
    in.op = op;
    in.params = params;
    p.instructions.push_back(in);
  };
  ConvParams c;
  c.c_in = 8, c.h_in = c.w_in = 6, c.c_out = 8, c.kh = c.kw = 3, c.group = 8;
  c.epilogue.has_in_scale = true, c.epilogue.in_scale_addr = 0xffffffffu;  // the largest SRAM address
  add(Opcode::Conv, c);
  GemmParams g;
  g.m = 2, g.n = 3, g.k = 5;
  g.epilogue.has_in_scale = true, g.epilogue.in_scale_addr = 0x40;
  g.epilogue.has_bias = true, g.epilogue.bias_addr = 0x50;
  g.epilogue.has_scale_shift = true, g.epilogue.scale_shift_addr = 0x60;
  g.epilogue.has_residual = true, g.epilogue.residual_addr = 0x70;
  g.epilogue.act = ActOp::Clip, g.epilogue.act_alpha = 0, g.epilogue.act_beta = 6;
  add(Opcode::Gemm, g);
  for (ActOp op : {ActOp::Relu, ActOp::Clip, ActOp::LeakyRelu, ActOp::Sigmoid, ActOp::Silu, ActOp::HardSigmoid,
                   ActOp::HardSwish, ActOp::ScaleShift, ActOp::Erf, ActOp::Exp, ActOp::Sqrt, ActOp::Reciprocal,
                   ActOp::Tanh, ActOp::Gelu, ActOp::Abs, ActOp::Neg, ActOp::Pow, ActOp::Identity, ActOp::Softmax,
                   ActOp::LayerNorm, ActOp::GeluTanh, ActOp::RmsNorm}) {
    ActParams a;
    a.op = op;
    a.in_addr = 0x100, a.out_addr = 0x200, a.elems = 32, a.channels = 2;
    a.has_residual = true, a.residual_addr = 0x300;
    if (op == ActOp::Clip) a.alpha = -1, a.beta = 1;
    if (op == ActOp::LeakyRelu || op == ActOp::HardSigmoid || op == ActOp::Pow || op == ActOp::LayerNorm ||
        op == ActOp::RmsNorm)
      a.alpha = 0.5f;
    if (op == ActOp::HardSigmoid) a.beta = 0.5f;
    if (op == ActOp::ScaleShift || op == ActOp::LayerNorm || op == ActOp::RmsNorm) a.param_addr = 0x400;
    add(Opcode::Act, a);
  }
  const std::string text = write_program(p);
  EXPECT_EQ(read_program(text), p) << text;
  EXPECT_NE(text.find("CONV    in=0x0 w=0x0 out=0x0 cin=8 hin=6 win=6 cout=8 kh=3 kw=3 group=8 in_scale=0xffffffff\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GEMM    a=0x0 b=0x0 out=0x0 m=2 n=3 k=5 in_scale=0x40 bias=0x50 scale_shift=0x60 "
                      "residual=0x70 act=clip alpha=0 beta=6\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ACT     op=layer_norm in=0x100 res=0x300 out=0x200 elems=32 channels=2 param=0x400 "
                      "alpha=0.5\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ACT     op=relu in=0x100 res=0x300 out=0x200 elems=32 channels=2\n"), std::string::npos)
      << text;
  // Keys may come in any order when read: res last, in_scale after act.
  const Program q = read_program(
      ".npuasm 1\n"
      "ACT op=softmax out=0x20 elems=8 in=0x10 res=0X1F\n"
      "GEMM act=relu in_scale=16 a=0 b=0 out=0 m=1 n=1 k=4\n");
  const auto& qa = std::get<ActParams>(q.instructions[0].params);
  EXPECT_TRUE(qa.has_residual);
  EXPECT_EQ(qa.residual_addr, 0x1fu);  // upper-case 0X prefix and hex digits
  const auto& qg = std::get<GemmParams>(q.instructions[1].params);
  EXPECT_TRUE(qg.epilogue.has_in_scale);
  EXPECT_EQ(qg.epilogue.in_scale_addr, 16u);  // decimal is accepted; written back as 0x10
  EXPECT_NE(write_program(q).find("GEMM    a=0x0 b=0x0 out=0x0 m=1 n=1 k=4 in_scale=0x10 act=relu\n"),
            std::string::npos)
      << write_program(q);
  // Equality sees the new fields.
  Program r = q;
  std::get<ActParams>(r.instructions[0].params).residual_addr = 0x20;
  EXPECT_FALSE(r == q);
  r = q;
  std::get<GemmParams>(r.instructions[1].params).epilogue.has_in_scale = false;
  EXPECT_FALSE(r == q);
}

TEST(Assembly, SampleFilesUseEveryMnemonicAndEveryKey) {
  // Collect, per mnemonic, the keys that appear in the sample files and compare with the
  // documented list: the round-trip tests above then cover every field of the format.
  std::map<std::string, std::set<std::string>> seen;
  for (const char* file : kSampleFiles) {
    std::istringstream in(slurp(data_path(file)));
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string head, word;
      if (!(words >> head) || head[0] == '.' || head[0] == '#') continue;
      while (words >> word) seen[head].insert(word.substr(0, word.find('=')));
    }
  }
  for (const auto& [mnemonic, keys] : kDocumentedKeys) {
    ASSERT_TRUE(seen.count(mnemonic)) << mnemonic << " is not used";
    for (const auto& key : keys) EXPECT_TRUE(seen[mnemonic].count(key)) << mnemonic << " never uses '" << key << "'";
    EXPECT_EQ(seen[mnemonic].size(), keys.size()) << mnemonic << " uses a key docs/isa.md does not list";
  }
}

TEST(Assembly, EveryInstructionFileHasTheValuesWritten) {
  const Program p = read_program_file(data_path("every_instruction.npuasm"));
  EXPECT_EQ(p.name, "every-instruction");
  EXPECT_EQ(p.strategy, "residual");
  EXPECT_EQ(p.dtype, DType::Int8);
  ASSERT_EQ(p.tensors.size(), 9u);
  EXPECT_EQ(p.tensors[5].name, "fc.p");
  EXPECT_EQ(p.tensors[5].kind, TensorKind::Weight);
  EXPECT_EQ(p.tensors[5].ddr_addr, 0x1700u);
  EXPECT_EQ(p.tensors[5].bytes, 120u);
  EXPECT_EQ(p.tensors[5].source_line, 8);
  ASSERT_EQ(p.instructions.size(), 21u);

  // LOAD x: extent=8,8,8 stride=16,256 (an 8x8 window of a [8,16,16] CHW tensor).
  const Instruction& l0 = p.instructions[0];
  EXPECT_EQ(l0.op, Opcode::Load);
  EXPECT_EQ(l0.tensor, "x");
  EXPECT_EQ(l0.source_line, 13);
  const auto& d = std::get<DmaDesc>(l0.params);
  EXPECT_EQ(d.extent, (std::array<std::uint32_t, 3>{8, 8, 8}));
  EXPECT_EQ(d.ddr_stride_bytes, (std::array<std::uint64_t, 2>{16, 256}));
  EXPECT_EQ(d.bytes(), 512u);               // 8*8*8*1
  EXPECT_EQ(d.ddr_span_bytes(), 1912u);     // 7*256 + 7*16 + 8*1
  EXPECT_EQ(std::get<DmaDesc>(p.instructions[2].params).elem_bytes, 4);

  // The depthwise CONV: every optional CONV field but the epilogue operands.
  const Instruction& dw = p.instructions[8];
  ASSERT_EQ(dw.op, Opcode::Conv);
  const auto& c = std::get<ConvParams>(dw.params);
  EXPECT_EQ(c.stride_h, 2);
  EXPECT_EQ(c.stride_w, 1);
  EXPECT_EQ(c.pad_top, 2);
  EXPECT_EQ(c.pad_left, 1);
  EXPECT_EQ(c.pad_bottom, 2);
  EXPECT_EQ(c.pad_right, 1);
  EXPECT_EQ(c.dilation, 2);
  EXPECT_EQ(c.group, 8);
  EXPECT_EQ(c.epilogue.act, ActOp::LeakyRelu);
  EXPECT_EQ(c.epilogue.act_alpha, 0.01f);
  // h_out = (8 + 2 + 2 - 2*(3-1) - 1) / 2 + 1 = 4; w_out = (8 + 1 + 1 - 2*2 - 1) / 1 + 1 = 6.
  EXPECT_EQ(c.h_out(), 4);
  EXPECT_EQ(c.w_out(), 6);
  ASSERT_EQ(dw.push.size(), 1u);
  EXPECT_EQ(dw.push[0], (Token{Queue::Compute, Queue::Store}));

  // The first CONV: pad=1 means all four sides; full epilogue.
  const auto& c1 = std::get<ConvParams>(p.instructions[7].params);
  EXPECT_EQ(c1.pad_top + c1.pad_left + c1.pad_bottom + c1.pad_right, 4);
  EXPECT_TRUE(c1.epilogue.has_bias && c1.epilogue.has_scale_shift && c1.epilogue.has_residual);
  EXPECT_EQ(c1.epilogue.scale_shift_addr, 0x820u);
  EXPECT_EQ(c1.epilogue.act, ActOp::Clip);
  EXPECT_EQ(c1.epilogue.act_beta, 6.0f);

  const auto& gemm = std::get<GemmParams>(p.instructions[14].params);
  EXPECT_EQ(gemm.epilogue.act_alpha, -1.5f);
  EXPECT_EQ(gemm.macs(), 80u);  // 1 * 10 * 8

  EXPECT_EQ(std::get<SyncParams>(p.instructions[19].params).queue, Queue::Compute);
  EXPECT_EQ(p.instructions[19].queue(), Queue::Compute);
  EXPECT_EQ(p.instructions[19].layer, "end");
}

TEST(Assembly, NewOpsFileHasTheValuesWritten) {
  const Program p = read_program_file(data_path("new_ops.npuasm"));
  ASSERT_EQ(p.instructions.size(), 30u);
  // Every ACT op and epilogue act of the file, by name: 10 element-wise functions, 2 row-wise.
  std::set<std::string> act_ops, epilogue_acts;
  std::set<std::string> eltwise_ops;
  for (const auto& in : p.instructions) {
    if (const auto* a = std::get_if<ActParams>(&in.params)) act_ops.insert(to_string(a->op));
    if (const auto* g = std::get_if<GemmParams>(&in.params)) epilogue_acts.insert(to_string(g->epilogue.act));
    if (const auto* c = std::get_if<ConvParams>(&in.params)) epilogue_acts.insert(to_string(c->epilogue.act));
    if (const auto* e = std::get_if<EltwiseParams>(&in.params)) eltwise_ops.insert(to_string(e->op));
  }
  EXPECT_EQ(act_ops, (std::set<std::string>{"layer_norm", "softmax", "erf", "exp", "sqrt", "reciprocal", "tanh",
                                            "gelu", "abs", "neg", "pow", "identity"}));
  EXPECT_EQ(epilogue_acts, (std::set<std::string>{"gelu", "pow", "identity"}));
  EXPECT_EQ(eltwise_ops,
            (std::set<std::string>{"add", "sub", "div", "max", "min", "pow", "rsub", "rdiv"}));

  // CONV act=pow alpha=2 (a Square).
  const auto& sq = std::get<ConvParams>(p.instructions[3].params);
  EXPECT_EQ(sq.epilogue.act, ActOp::Pow);
  EXPECT_EQ(sq.epilogue.act_alpha, 2.0f);
  // layer_norm: 16 rows of 256 / 16 = 16, gamma/beta at 0x3000, eps 1e-5 in alpha.
  const auto& ln = std::get<ActParams>(p.instructions[5].params);
  EXPECT_EQ(ln.op, ActOp::LayerNorm);
  EXPECT_EQ(ln.channels, 16);
  EXPECT_EQ(ln.param_addr, 0x3000u);
  EXPECT_TRUE(ln.has_param);
  EXPECT_EQ(ln.alpha, 1e-5f);
  // ELTWISE sub: b_elems=16 b_inner=16 b_offset=128: element i uses b[((128 + i) / 16) % 16],
  // so element 0 uses b[8], element 15 b[8], element 16 b[9], element 127 b[(255/16)%16] = b[15].
  const auto& e1 = std::get<EltwiseParams>(p.instructions[19].params);
  EXPECT_EQ(e1.op, EltwiseOp::Sub);
  EXPECT_EQ(e1.b_elems, 16u);
  EXPECT_EQ(e1.b_inner, 16u);
  EXPECT_EQ(e1.b_offset, 128u);
  EXPECT_EQ(e1.b_index(0), 8u);
  EXPECT_EQ(e1.b_index(15), 8u);
  EXPECT_EQ(e1.b_index(16), 9u);
  EXPECT_EQ(e1.b_index(127), 15u);
  // Defaults when the keys are absent: no broadcast, b_index(i) = i.
  const auto& e3 = std::get<EltwiseParams>(p.instructions[21].params);
  EXPECT_EQ(e3.op, EltwiseOp::Max);
  EXPECT_EQ(e3.b_elems, 0u);
  EXPECT_EQ(e3.b_inner, 1u);
  EXPECT_EQ(e3.b_offset, 0u);
  EXPECT_EQ(e3.b_index(200), 200u);
  // HOST: every figure, on the compute queue, with its tokens.
  const Instruction& nms = p.instructions[27];
  ASSERT_EQ(nms.op, Opcode::Host);
  EXPECT_EQ(nms.queue(), Queue::Compute);
  EXPECT_EQ(nms.layer, "nms");
  const auto& h = std::get<HostParams>(nms.params);
  EXPECT_EQ(h.cycles, 52084u);
  EXPECT_EQ(h.macs, 1000000u);
  EXPECT_EQ(h.rd, 4096u);
  EXPECT_EQ(h.wr, 1024u);
  EXPECT_EQ(h.nodes, 5);
  EXPECT_EQ(nms.wait, (std::vector<Token>{{Queue::Store, Queue::Compute}}));
  EXPECT_EQ(nms.push, (std::vector<Token>{{Queue::Compute, Queue::Load}}));
  EXPECT_EQ(std::get<HostParams>(p.instructions[28].params), HostParams{});
}

TEST(Assembly, EveryNewOpRoundTripsFromMemory) {
  // Each ACT op, each element-wise epilogue act (on a GEMM) and each ELTWISE op, built in
  // memory with the fields it uses, is written and read back equal.
  Program p;
  auto add = [&p](Opcode op, auto params) {
    Instruction in;
    in.op = op;
    in.params = params;
    p.instructions.push_back(in);
  };
  for (ActOp op : {ActOp::Erf, ActOp::Exp, ActOp::Sqrt, ActOp::Reciprocal, ActOp::Tanh, ActOp::Gelu, ActOp::Abs,
                   ActOp::Neg, ActOp::Pow, ActOp::Identity, ActOp::Softmax, ActOp::LayerNorm, ActOp::GeluTanh,
                   ActOp::RmsNorm, ActOp::Log, ActOp::Floor, ActOp::Ceil, ActOp::Not, ActOp::Trunc, ActOp::ToBool}) {
    ActParams a;
    a.op = op;
    a.in_addr = 0x10, a.out_addr = 0x20, a.elems = 60, a.channels = 3;
    if (op == ActOp::Pow) a.alpha = 3.0f;
    if (op == ActOp::LayerNorm || op == ActOp::RmsNorm) a.alpha = 1e-6f, a.param_addr = 0x400;
    add(Opcode::Act, a);
    if (is_row_wise(op)) continue;
    GemmParams g;
    g.m = g.n = g.k = 2;
    g.epilogue.act = op;
    if (op == ActOp::Pow) g.epilogue.act_alpha = -0.5f;
    add(Opcode::Gemm, g);
  }
  for (EltwiseOp op : {EltwiseOp::Sub, EltwiseOp::Div, EltwiseOp::Max, EltwiseOp::Min, EltwiseOp::Pow,
                       EltwiseOp::RSub, EltwiseOp::RDiv, EltwiseOp::Equal, EltwiseOp::Less, EltwiseOp::Greater,
                       EltwiseOp::LessEqual, EltwiseOp::GreaterEqual, EltwiseOp::And, EltwiseOp::Or, EltwiseOp::Xor,
                       EltwiseOp::Mod, EltwiseOp::FMod}) {
    EltwiseParams e;
    e.op = op;
    e.elems = 96;
    e.b_elems = 3, e.b_inner = 32, e.b_offset = 0x100000000ull;  // b_offset beyond 32 bits
    add(Opcode::Eltwise, e);
  }
  HostParams h;
  h.cycles = 0xffffffffffffffffull, h.macs = 1, h.rd = 0x100000000ull, h.wr = 7, h.nodes = 2147483647;
  add(Opcode::Host, h);
  const std::string text = write_program(p);
  EXPECT_EQ(read_program(text), p) << text;
  EXPECT_NE(text.find("ACT     op=layer_norm in=0x10 out=0x20 elems=60 channels=3 param=0x400 alpha=1e-06\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GEMM    a=0x0 b=0x0 out=0x0 m=2 n=2 k=2 act=pow alpha=-0.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ELTWISE op=rdiv a=0x0 b=0x0 out=0x0 elems=96 b_elems=3 b_inner=32 b_offset=4294967296\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("HOST    cycles=18446744073709551615 macs=1 rd=4294967296 wr=7 nodes=2147483647\n"),
            std::string::npos)
      << text;
}

TEST(Assembly, MoveFileIsCanonicalAndHasTheValuesWritten) {
  const std::string text = slurp(data_path("move.npuasm"));
  const Program p = read_program(text);
  EXPECT_EQ(write_program(p), text);  // canonical form: written back byte for byte
  ASSERT_EQ(p.instructions.size(), 5u);
  ASSERT_EQ(p.instructions[1].op, Opcode::Move);
  const MoveParams& t = std::get<MoveParams>(p.instructions[1].params);
  EXPECT_EQ(t.in_addr, 0u);
  EXPECT_EQ(t.out_addr, 0x100u);
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.extent, (std::array<std::uint32_t, 6>{2, 3, 4, 1, 1, 1}));
  EXPECT_EQ(t.in_stride, (std::array<std::uint32_t, 6>{12, 4, 1, 0, 0, 0}));
  EXPECT_EQ(t.out_stride, (std::array<std::uint32_t, 6>{1, 2, 6, 0, 0, 0}));
  // 2 x 3 x 4 = 24 elements; spans 1 + 1x12 + 2x4 + 3x1 = 24 (in), 1 + 1 + 4 + 18 = 24 (out).
  EXPECT_EQ(t.elems(), 24u);
  EXPECT_EQ(t.span_elems(t.in_stride), 24u);
  EXPECT_EQ(t.span_elems(t.out_stride), 24u);
  const MoveParams& u = std::get<MoveParams>(p.instructions[2].params);
  // Nearest 2x upsampling of [2, 3, 4]: 2 x 6 x 8 = 96 out elements from an in span of 24
  // (1 + 3 + 8 + 12 = 24; the factor dimensions have in stride 0).
  EXPECT_EQ(u.elems(), 96u);
  EXPECT_EQ(u.span_elems(u.in_stride), 24u);
  EXPECT_EQ(u.span_elems(u.out_stride), 96u);
  // Omitted strides are the packed ones: extent=4,3 -> in_stride=out_stride=1,4.
  const Program q = read_program(".npuasm 1\n.program dtype=int8\nMOVE in=0x0 out=0x40 extent=4,3\n");
  const MoveParams& m = std::get<MoveParams>(q.instructions.at(0).params);
  EXPECT_EQ(m.in_stride, (std::array<std::uint32_t, 6>{1, 4, 0, 0, 0, 0}));
  EXPECT_EQ(m.out_stride, m.in_stride);
  EXPECT_NE(write_program(q).find("MOVE    in=0x0 out=0x40 extent=4,3 in_stride=1,4 out_stride=1,4\n"), std::string::npos);
}

TEST(Assembly, MoveZeroKeyRoundTripsAndWidensTheOutOperand) {
  // A zero insertion of a 2x2 fp32 plane into 3x3: 4 elements moved with out strides 2, 6; the
  // out span is 1 + 2 + 6 = 9 elements, and zero=12 clears 12 (48 bytes) first.
  const Program q = read_program(".npuasm 1\n.program dtype=fp32\nMOVE in=0x0 out=0x40 extent=2,2 in_stride=1,2 "
                                 "out_stride=2,6 zero=12\n");
  const MoveParams& m = std::get<MoveParams>(q.instructions.at(0).params);
  EXPECT_EQ(m.zero, 12u);
  EXPECT_EQ(m.out_elems(), 12u);
  EXPECT_NE(write_program(q).find("out_stride=2,6 zero=12\n"), std::string::npos);
  EXPECT_EQ(read_program(write_program(q)).instructions.at(0), q.instructions.at(0));
  const auto ops = sram_operands(q.instructions.at(0), DType::Fp32);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[1].bytes, 48u);
  // Without `zero` nothing is written for it, and the out operand is the span (9 x 4 bytes).
  const Program r = read_program(".npuasm 1\n.program dtype=fp32\nMOVE in=0x0 out=0x40 extent=2,2 in_stride=1,2 "
                                 "out_stride=2,6\n");
  EXPECT_EQ(write_program(r).find("zero="), std::string::npos);
  EXPECT_EQ(sram_operands(r.instructions.at(0), DType::Fp32)[1].bytes, 36u);
}

TEST(Assembly, WriterRejectsWhatTheNewOpsCannotExpress) {
  Program p;
  Instruction in;
  in.op = Opcode::Gemm;
  GemmParams g;
  g.m = g.n = g.k = 1;
  g.epilogue.act = ActOp::Softmax;  // row-wise: not an epilogue
  in.params = g;
  p.instructions = {in};
  EXPECT_THROW(write_program(p), std::invalid_argument);
  in.op = Opcode::Act;
  ActParams a;
  a.op = ActOp::LayerNorm;
  a.elems = 4;
  a.has_param = false;  // the builder left out gamma/beta
  in.params = a;
  p.instructions = {in};
  EXPECT_THROW(write_program(p), std::invalid_argument);
  in.op = Opcode::Host;
  HostParams h;
  h.nodes = -1;
  in.params = h;
  p.instructions = {in};
  EXPECT_THROW(write_program(p), std::invalid_argument);
  in.op = Opcode::Move;
  MoveParams m;
  m.rank = 7;  // more dimensions than MOVE has
  in.params = m;
  p.instructions = {in};
  EXPECT_THROW(write_program(p), std::invalid_argument);
  m.rank = 1;
  m.extent[1] = 2;  // a dimension past rank that is used: it could not be read back
  in.params = m;
  p.instructions = {in};
  EXPECT_THROW(write_program(p), std::invalid_argument);
}

TEST(Assembly, DoubleBufferedConvReadsAndRoundTrips) {
  const Program p = read_program_file(data_path("double_buffered_conv.npuasm"));
  EXPECT_EQ(p.instructions.size(), 14u);
  EXPECT_EQ(p.tensors.size(), 4u);
  std::uint64_t macs = 0;
  for (const auto& inst : p.instructions)
    if (inst.op == Opcode::Conv) macs += std::get<ConvParams>(inst.params).macs();
  // A 3x3 conv 16 -> 32 channels over a 32x32 output: 32*32*32*16*9 = 4718592 MACs, split
  // into 4 tiles of 8 output rows whose padding is set per tile.
  EXPECT_EQ(macs, 4718592u);
  EXPECT_EQ(read_program(write_program(p)), p);
  const std::string once = write_program(p);
  EXPECT_EQ(write_program(read_program(once)), once);
}

/// A program built in memory with every field set away from its default.
Program every_field_program() {
  Program p;
  p.name = "mem";
  p.strategy = "layer";
  p.dtype = DType::Fp16;
  p.tensors = {{"in", TensorKind::Input, 0x10, 4096},
               {"w", TensorKind::Weight, 0x2000, 8192},
               {"o", TensorKind::Output, 0xffff0000ull, 1 << 20},
               {"tmp", TensorKind::Intermediate, 0x1'0000'0000ull, 64}};
  auto add = [&](Opcode op, auto params, std::vector<Token> wait, std::vector<Token> push, std::string tensor = "") {
    Instruction i;
    i.op = op;
    i.layer = "L" + std::to_string(p.instructions.size());
    i.tensor = tensor;
    i.params = params;
    i.wait = std::move(wait);
    i.push = std::move(push);
    p.instructions.push_back(i);
  };
  const Token ld2cp{Queue::Load, Queue::Compute}, cp2ld{Queue::Compute, Queue::Load};
  const Token cp2st{Queue::Compute, Queue::Store}, st2cp{Queue::Store, Queue::Compute};
  const Token ld2st{Queue::Load, Queue::Store}, st2ld{Queue::Store, Queue::Load};
  DmaDesc ld{0x12, 0xfffffff0u, 2, {3, 5, 7}, {100, 1000}};
  add(Opcode::Load, ld, {cp2ld, st2ld}, {ld2cp, ld2st}, "in");
  DmaDesc st{0xffff0000ull, 0, 8, {1, 1, 9}, {0, 64}};  // only the plane dimension used
  add(Opcode::Store, st, {cp2st, ld2st}, {st2cp, st2ld}, "o");
  DmaDesc row_only{0x2000, 4, 4, {1, 1, 1}, {12, 0}};  // stride given although extent[1] == 1
  add(Opcode::Load, row_only, {}, {}, "w");

  ConvParams c;
  c.in_addr = 1, c.w_addr = 2, c.out_addr = 0xffffffffu;
  c.c_in = 6, c.h_in = 7, c.w_in = 8, c.c_out = 9, c.kh = 3, c.kw = 5;
  c.stride_h = 2, c.stride_w = 3, c.pad_top = 1, c.pad_left = 2, c.pad_bottom = 3, c.pad_right = 4;
  c.dilation = 2, c.group = 3;
  c.epilogue = {true, 0x100, true, 0x200, true, 0x300, ActOp::HardSigmoid, 0.2f, 0.5f};
  add(Opcode::Conv, c, {ld2cp, st2cp}, {cp2st, cp2ld});
  ConvParams c2 = c;
  c2.stride_h = c2.stride_w = 4;
  c2.pad_top = c2.pad_left = c2.pad_bottom = c2.pad_right = 5;
  c2.epilogue = {};
  c2.epilogue.act = ActOp::Clip;
  c2.epilogue.act_alpha = -std::numeric_limits<float>::infinity();
  c2.epilogue.act_beta = std::numeric_limits<float>::max();
  add(Opcode::Conv, c2, {}, {});

  GemmParams g{0x10, 0x20, 0x30, 11, 12, 13, {}};
  g.epilogue = {true, 7, false, 0, true, 9, ActOp::LeakyRelu, 1e-45f /* denormal */, 0};
  g.epilogue.has_mul = true;  // a GLU gate (fuse-gemm-epilogue)
  g.epilogue.mul_addr = 0x50;
  add(Opcode::Gemm, g, {ld2cp}, {cp2st});
  for (ActOp op : {ActOp::Relu, ActOp::Sigmoid, ActOp::Silu, ActOp::HardSwish}) {
    GemmParams g2{1, 2, 3, 4, 5, 6, {}};
    g2.epilogue.act = op;
    add(Opcode::Gemm, g2, {}, {});
  }
  ActParams a{ActOp::ScaleShift, 0x40, 0x80, 0xc0, 96, 12, 0, 0};
  add(Opcode::Act, a, {ld2cp}, {});
  ActParams a2{ActOp::Clip, 1, 2, 0, 10, 1, 0.1f, 6.5f};
  add(Opcode::Act, a2, {}, {});
  ActParams a3{ActOp::LeakyRelu, 1, 2, 0, 10, 2, 3.4028235e38f, 0};
  add(Opcode::Act, a3, {}, {});
  add(Opcode::Eltwise, EltwiseParams{EltwiseOp::Add, 1, 2, 3, 4}, {}, {});
  add(Opcode::Eltwise, EltwiseParams{EltwiseOp::Mul, 5, 6, 7, 8}, {}, {cp2st});
  PoolParams pl{PoolOp::Avg, 0x11, 0x22, 3, 9, 10, 3, 2, 2, 1, 1, 0, 1, 0};
  add(Opcode::Pool, pl, {}, {});
  PoolParams pg{PoolOp::GlobalAvg, 0x11, 0x22, 64, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0};
  add(Opcode::Pool, pg, {}, {});
  PoolParams pp{PoolOp::AvgPad, 0x33, 0x44, 2, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1};
  add(Opcode::Pool, pp, {}, {});
  add(Opcode::Sync, SyncParams{Queue::Store}, {cp2st, cp2st, ld2st}, {st2ld});
  add(Opcode::Sync, SyncParams{Queue::Load}, {st2ld}, {});
  p.instructions.back().layer.clear();  // no layer at all
  return p;
}

TEST(Assembly, InMemoryProgramWithEveryFieldRoundTripsExactly) {
  const Program p = every_field_program();
  const std::string text = write_program(p);
  const Program back = read_program(text, "mem.npuasm");
  EXPECT_EQ(back, p) << text;
  EXPECT_EQ(write_program(back), text);
  // Bit-exact floats, not merely ==: the denormal and the extreme values survive the text.
  const auto& g = std::get<GemmParams>(back.instructions[5].params);
  EXPECT_EQ(g.epilogue.act_alpha, 1e-45f);
  const auto& c2 = std::get<ConvParams>(back.instructions[4].params);
  EXPECT_TRUE(std::isinf(c2.epilogue.act_alpha) && c2.epilogue.act_alpha < 0);
  EXPECT_EQ(c2.epilogue.act_beta, std::numeric_limits<float>::max());
}

TEST(Assembly, CanonicalFormOfKnownInstructions) {
  // The canonical text is part of the format (docs/isa.md): keys in table order, addresses
  // in lower-case hex, sizes in decimal, defaults omitted, short forms for uniform stride/pad.
  const Program p = every_field_program();
  const std::string text = write_program(p);
  EXPECT_NE(text.find(".npuasm 1\n.program name=mem strategy=layer dtype=fp16\n"), std::string::npos);
  EXPECT_NE(text.find(".tensor tmp kind=intermediate ddr=0x100000000 bytes=64\n"), std::string::npos);
  EXPECT_NE(text.find("LOAD    layer=L0 tensor=in ddr=0x12 sram=0xfffffff0 elem=2 extent=3,5,7 stride=100,1000 "
                      "wait=cp2ld,st2ld push=ld2cp,ld2st\n"),
            std::string::npos)
      << text;
  // Trailing unit dimensions are dropped unless a stride is set for them.
  EXPECT_NE(text.find("STORE   layer=L1 tensor=o ddr=0xffff0000 sram=0x0 elem=8 extent=1,1,9 stride=0,64 "),
            std::string::npos);
  EXPECT_NE(text.find("LOAD    layer=L2 tensor=w ddr=0x2000 sram=0x4 elem=4 extent=1,1 stride=12\n"),
            std::string::npos);
  EXPECT_NE(text.find("CONV    layer=L3 in=0x1 w=0x2 out=0xffffffff cin=6 hin=7 win=8 cout=9 kh=3 kw=5 stride=2,3 "
                      "pad=1,2,3,4 dilation=2 group=3 bias=0x100 scale_shift=0x200 residual=0x300 act=hard_sigmoid "
                      "alpha=0.2 beta=0.5 wait=ld2cp,st2cp push=cp2st,cp2ld\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stride=4 pad=5 dilation=2 group=3 act=clip alpha=-inf beta=3.4028235e+38\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ACT     layer=L10 op=scale_shift in=0x40 out=0x80 elems=96 channels=12 param=0xc0 wait=ld2cp\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("POOL    layer=L16 op=global_avg in=0x11 out=0x22 c=64 hin=7 win=7\n"), std::string::npos);
  EXPECT_NE(text.find("SYNC    queue=ld wait=st2ld\n"), std::string::npos);
}

TEST(Assembly, FloatsRoundTripBitExactly) {
  // 20000 floats from a fixed LCG over all bit patterns (NaNs skipped: they are rejected).
  Program p;
  p.tensors.clear();
  std::uint32_t state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 1664525u + 1013904223u;  // Numerical Recipes LCG
    float f;
    std::memcpy(&f, &state, sizeof f);
    if (std::isnan(f)) continue;
    Instruction inst;
    inst.op = Opcode::Act;
    inst.params = ActParams{ActOp::LeakyRelu, 0, 0, 0, 1, 1, f, 0};
    p.instructions.push_back(inst);
  }
  const Program back = read_program(write_program(p));
  ASSERT_EQ(back.instructions.size(), p.instructions.size());
  for (std::size_t i = 0; i < p.instructions.size(); ++i) {
    const float a = std::get<ActParams>(p.instructions[i].params).alpha;
    const float b = std::get<ActParams>(back.instructions[i].params).alpha;
    std::uint32_t ba, bb;
    std::memcpy(&ba, &a, 4);
    std::memcpy(&bb, &b, 4);
    ASSERT_EQ(ba, bb) << "instruction " << i;
  }
}

TEST(Assembly, FreeFormInputReadsLikeCanonicalForm) {
  // Keys in any order, decimal or hex (either case of x), long forms of stride and pad,
  // tabs, CRLF line ends, comments anywhere, blank lines, explicit defaults: all read to
  // the same program as the canonical text.
  const std::string canonical =
      ".npuasm 1\n"
      ".program dtype=int8\n"
      ".tensor t kind=input ddr=0x100 bytes=4096\n"
      "\n"
      "LOAD    tensor=t ddr=0x100 sram=0x0 extent=16,4 stride=64 push=ld2cp\n"
      "CONV    in=0x0 w=0x40 out=0x80 cin=4 hin=4 win=4 cout=4 kh=3 kw=3 stride=2 pad=1 act=relu wait=ld2cp\n";
  const std::string free_form =
      "# leading comment\r\n"
      "\r\n"
      "   .npuasm\t1   # version\r\n"
      ".tensor t bytes=4096 ddr=256 kind=input\r\n"
      "LOAD push=ld2cp extent=16,4 stride=0X40 sram=0 ddr=0x100 tensor=t\r\n"
      "\tCONV act=relu wait=ld2cp pad=1,1,1,1 stride=2,2 kw=3 kh=3 cout=4 win=4 hin=4 cin=4 out=128 w=64 in=0 "
      "dilation=1 group=1#comment right after a value\r\n";
  EXPECT_EQ(read_program(free_form), read_program(canonical));
  EXPECT_EQ(write_program(read_program(free_form)), canonical);
  EXPECT_EQ(write_program(read_program(canonical)), canonical);
}

TEST(Assembly, ExplicitDefaultsAreAcceptedAndDroppedOnWrite) {
  const Program p = read_program(
      ".npuasm 1\n"
      "GEMM a=0 b=0 out=0 m=1 n=1 k=1 act=none\n"
      "POOL op=max in=0 out=0 c=1 hin=2 win=2 kh=1 kw=1 stride=1 pad=0\n");
  EXPECT_EQ(std::get<GemmParams>(p.instructions[0].params).epilogue.act, ActOp::None);
  EXPECT_EQ(write_program(p),
            ".npuasm 1\n.program dtype=int8\n"
            "GEMM    a=0x0 b=0x0 out=0x0 m=1 n=1 k=1\n"
            "POOL    op=max in=0x0 out=0x0 c=1 hin=2 win=2\n");
}

TEST(Assembly, ProgramNameMayBePositionalAndAByteOrderMarkIsSkipped) {
  const Program p = read_program("\xEF\xBB\xBF.npuasm 1\n.program resnet50 strategy=conv-bn-act dtype=fp16\n");
  EXPECT_EQ(p.name, "resnet50");
  EXPECT_EQ(p.strategy, "conv-bn-act");
  EXPECT_EQ(p.dtype, DType::Fp16);
  EXPECT_EQ(write_program(p), ".npuasm 1\n.program name=resnet50 strategy=conv-bn-act dtype=fp16\n");
  EXPECT_THROW(read_program(".npuasm 1\n.program a name=b\n"), ConfigError);
}

TEST(Assembly, MutatedTextEitherRoundTripsOrIsAConfigError) {
  // 3000 copies of each sample with 1-3 bytes replaced, deleted or duplicated (fixed LCG, so
  // the cases are the same on every run). The reader must never crash or throw anything but
  // ConfigError, and whatever it accepts must round-trip exactly.
  for (const char* file : kSampleFiles) {
    const std::string base = slurp(data_path(file));
    const std::string alphabet = "0123456789abcdefx=,.# \nLOADCONVSYNC-_";
    std::uint32_t state = 2024;
    auto next = [&state](std::uint32_t n) {
      state = state * 1664525u + 1013904223u;
      return (state >> 8) % n;
    };
    int accepted = 0;
    for (int i = 0; i < 3000; ++i) {
      std::string text = base;
      const std::uint32_t edits = 1 + next(3);
      for (std::uint32_t e = 0; e < edits; ++e) {
        const std::size_t pos = next(std::uint32_t(text.size()));
        switch (next(3)) {
          case 0: text[pos] = alphabet[next(std::uint32_t(alphabet.size()))]; break;
          case 1: text.erase(pos, 1); break;
          default: text.insert(pos, 1, text[pos]); break;
        }
      }
      try {
        const Program p = read_program(text);
        ++accepted;
        const std::string canonical = write_program(p);
        ASSERT_EQ(read_program(canonical), p) << text;
        ASSERT_EQ(write_program(read_program(canonical)), canonical) << text;
      } catch (const ConfigError&) {
      }
    }
    // Some mutations land in comments-free but harmless places (a digit of an address, ...).
    EXPECT_GT(accepted, 0) << file;
  }
}

TEST(Assembly, EmptyProgramNeedsOnlyTheHeader) {
  const Program p = read_program("# nothing yet\n.npuasm 1\n");
  EXPECT_TRUE(p.instructions.empty());
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(write_program(p), ".npuasm 1\n.program dtype=int8\n");
}

TEST(Assembly, WriterRejectsNamesTheFormatCannotHold) {
  Program p;
  p.tensors = {{"has space", TensorKind::Input, 0, 1}};
  EXPECT_THROW(write_program(p), std::invalid_argument);
  Program q;
  Instruction i;
  i.op = Opcode::Sync;
  i.layer = "a#b";  // '#' would start a comment
  i.params = SyncParams{Queue::Compute};
  q.instructions.push_back(i);
  EXPECT_THROW(write_program(q), std::invalid_argument);
  // A compute instruction never names a tensor, so the writer cannot express one.
  q.instructions[0].layer = "ok";
  q.instructions[0].tensor = "t";
  EXPECT_THROW(write_program(q), std::invalid_argument);
}

TEST(Assembly, MissingFileIsAConfigErrorNamingThePath) {
  try {
    read_program_file("/nonexistent/prog.npuasm");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/prog.npuasm: error: cannot open"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace npu::isa
