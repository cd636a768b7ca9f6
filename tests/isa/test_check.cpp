// check_program: each kind of issue, found on hand-modified copies of the sample programs,
// against a hardware config built in code (no YAML), plus sram_operands() sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "small_npu.hpp"

namespace npu::isa {
namespace {

std::string check_data_path(const std::string& name) { return std::string(NPU_SOURCE_DIR) + "/tests/isa/data/" + name; }

using test::small_npu;

Program double_buffered() { return read_program_file(check_data_path("double_buffered_conv.npuasm")); }

std::vector<CheckIssue> of_kind(const std::vector<CheckIssue>& all, CheckKind kind) {
  std::vector<CheckIssue> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out), [&](const CheckIssue& i) { return i.kind == kind; });
  return out;
}

std::string dump(const std::vector<CheckIssue>& issues) {
  std::string s;
  for (const auto& i : issues) s += std::to_string(i.source_line) + ": [" + to_string(i.kind) + "] " + i.message + "\n";
  return s;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Check, SampleProgramsAreClean) {
  EXPECT_EQ(small_npu().ddr.capacity_bytes(), 0x80000u);  // 256 * 256 * 8
  const auto issues = check_program(double_buffered(), small_npu());
  EXPECT_TRUE(issues.empty()) << dump(issues);
  const auto every = check_program(read_program_file(check_data_path("every_instruction.npuasm")), small_npu());
  EXPECT_TRUE(every.empty()) << dump(every);
}

TEST(Check, SramOperandPastTheCapacity) {
  // The second output buffer is [0x8000, 0x8000 + 32*8*32) = [0x8000, 0xa000). With 0xa000
  // bytes it fits exactly; one byte less and the two CONVs writing it (#7, #12) and the two
  // STOREs reading it (#8, #13) are out of range. Nothing else reaches past 0x5400.
  HwConfig hw = small_npu();
  hw.sram.capacity_bytes = 0xa000;
  EXPECT_TRUE(check_program(double_buffered(), hw).empty());
  hw.sram.capacity_bytes = 0x9fff;
  const Program p = double_buffered();
  const auto issues = check_program(p, hw);
  ASSERT_EQ(issues.size(), 4u) << dump(issues);
  const std::size_t expected_index[] = {7, 8, 12, 13};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(issues[i].kind, CheckKind::SramRange);
    EXPECT_EQ(issues[i].index, expected_index[i]);
    EXPECT_EQ(issues[i].source_line, p.instructions[expected_index[i]].source_line);
  }
  EXPECT_TRUE(contains(issues[0].message, "instruction #7 CONV (layer conv1): operand 'out' [0x8000, 0xa000) "
                                          "(8192 bytes) ends past the SRAM capacity of 40959 bytes"))
      << issues[0].message;
  EXPECT_TRUE(contains(issues[1].message, "instruction #8 STORE (layer conv1): operand 'sram' [0x8000, 0xa000)"));
}

TEST(Check, DdrRangePastTheCapacity) {
  // 64 rows: 64 * 256 * 8 = 0x20000 bytes of DDR. The output tensor [0x20000, 0x28000) and
  // its four STOREs lie past it; the inputs end at 0x14000 and are fine.
  HwConfig hw = small_npu();
  hw.ddr.rows = 64;
  const auto issues = check_program(double_buffered(), hw);
  const auto ddr = of_kind(issues, CheckKind::DdrRange);
  ASSERT_EQ(ddr.size(), 5u) << dump(issues);
  EXPECT_EQ(issues.size(), 5u) << dump(issues);
  EXPECT_TRUE(contains(ddr[0].message, "tensor 'conv1.out' [0x20000, +32768 B) ends past the DDR capacity of 131072"))
      << ddr[0].message;
  EXPECT_EQ(ddr[0].source_line, 15);  // its .tensor line in the file
  // STORE tile 0: 0x20000 + (32-1)*1024 + 256 = 0x27d00.
  EXPECT_TRUE(contains(ddr[1].message, "instruction #5 STORE (layer conv1): DDR range [0x20000, 0x27d00)"))
      << ddr[1].message;
}

TEST(Check, DmaLeavingItsTensor) {
  // Tile 3 reads rows 23..31: 0x102e0 + 15*1024 + 288 = 0x14000, the end of `input`.
  // Shifted by one 32-byte row it reads 32 bytes past the tensor.
  Program p = double_buffered();
  std::get<DmaDesc>(p.instructions[9].params).ddr_addr = 0x10300;
  const auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_EQ(issues[0].kind, CheckKind::TensorRegion);
  EXPECT_EQ(issues[0].index, 9u);
  EXPECT_TRUE(contains(issues[0].message, "DDR range [0x10300, 0x14020) leaves tensor 'input' [0x10000, 0x14000)"))
      << issues[0].message;
  // Starting before the tensor is caught too.
  p = double_buffered();
  std::get<DmaDesc>(p.instructions[2].params).ddr_addr = 0xfff0;
  EXPECT_EQ(of_kind(check_program(p, small_npu()), CheckKind::TensorRegion).size(), 1u);
}

TEST(Check, UndeclaredOrMissingTensor) {
  Program p = double_buffered();
  p.instructions[0].tensor = "conv9.W";
  p.instructions[1].tensor.clear();
  const auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 2u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "names tensor 'conv9.W', which is not declared"));
  EXPECT_TRUE(contains(issues[1].message, "names no tensor"));
  EXPECT_EQ(issues[1].kind, CheckKind::TensorRegion);
}

TEST(Check, OverlappingTensorDeclarations) {
  // `input` is [0x10000, 0x14000). A region [0x13000, 0x14000) overlaps it; [0x14000, 0x14100)
  // merely touches both (the existing W/b pair touches at 0x1200 as well): no issue.
  Program p = double_buffered();
  p.tensors.push_back({"extra", TensorKind::Intermediate, 0x13000, 0x1000});
  p.tensors.push_back({"next", TensorKind::Intermediate, 0x14000, 0x100});
  auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_EQ(issues[0].kind, CheckKind::TensorDecl);
  EXPECT_EQ(issues[0].index, 4u);
  EXPECT_TRUE(contains(issues[0].message, "tensor 'extra' [0x13000, 0x14000) overlaps tensor 'input' [0x10000, 0x14000)"))
      << issues[0].message;
  p.tensors.push_back({"input", TensorKind::Input, 0x40000, 16});
  issues = check_program(p, small_npu());
  EXPECT_TRUE(contains(dump(issues), "tensor 'input' is declared twice")) << dump(issues);
}

TEST(Check, IllegalConvShapes) {
  Program p = double_buffered();
  auto& c = std::get<ConvParams>(p.instructions[4].params);
  c.group = 3;  // 16 % 3 = 1 and 32 % 3 = 2: both channel counts fail
  auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 2u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "cin=16 is not divisible by group=3"));
  EXPECT_TRUE(contains(issues[1].message, "cout=32 is not divisible by group=3"));
  EXPECT_EQ(issues[0].kind, CheckKind::Shape);

  // Tile 0 has 9 input rows and pad top 1: a 3-tap window fits (10 >= 3) but an 11-tap one
  // does not, so the output would be empty.
  c.group = 1;
  c.kh = 11;
  issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "the vertical window (11 taps) is larger than the padded input (9 + 1 pad)"));

  // Dilation 5 turns 3 taps into 5*(3-1)+1 = 11 taps.
  c.kh = 3;
  c.dilation = 5;
  issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "(11 taps with dilation)"));

  c.dilation = 1;
  c.c_in = 0;
  c.stride_w = -1;
  issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 2u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "'cin' is 0, it must be >= 1"));
  EXPECT_TRUE(contains(issues[1].message, "'stride(w)' is -1, it must be >= 1"));
}

TEST(Check, OutputSizeUsesFloorNotTruncation) {
  // h_in 1, kh 2, stride 2, no pad: (1 - 2) / 2 + 1 is 1 with C++ truncation but
  // floor(-1/2) + 1 = 0 in ONNX: the window never fits, which the check reports.
  Program p;
  Instruction i;
  i.op = Opcode::Pool;
  i.params = PoolParams{PoolOp::Max, 0, 64, 1, 1, 4, 2, 1, 2, 1, 0, 0, 0, 0};
  p.instructions.push_back(i);
  const auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "the vertical window (2 taps) is larger than the padded input (1 + 0 pad)"));
}

TEST(Check, IllegalVectorAndGemmShapes) {
  Program p;
  auto add = [&](Opcode op, auto params) {
    Instruction i;
    i.op = op;
    i.params = params;
    p.instructions.push_back(i);
  };
  add(Opcode::Gemm, GemmParams{0, 0, 0, 0, 4, 4, {}});
  add(Opcode::Act, ActParams{ActOp::ScaleShift, 0, 0, 0, 100, 3, 0, 0});  // 100 % 3 != 0
  add(Opcode::Act, ActParams{ActOp::Clip, 0, 0, 0, 10, 1, 6, 0});         // min 6 > max 0
  add(Opcode::Eltwise, EltwiseParams{EltwiseOp::Add, 0, 0, 0, 0});
  const auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 4u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "#0 GEMM: 'm' is 0"));
  EXPECT_TRUE(contains(issues[1].message, "elems=100 is not a multiple of channels=3"));
  EXPECT_TRUE(contains(issues[2].message, "clip min alpha=6 is above max beta=0"));
  EXPECT_TRUE(contains(issues[3].message, "'elems' is 0"));
}

TEST(Check, NewOpsSampleIsClean) {
  const auto issues = check_program(read_program_file(check_data_path("new_ops.npuasm")), small_npu());
  EXPECT_TRUE(issues.empty()) << dump(issues);
}

TEST(Check, MoveSampleIsCleanAndItsOperandsAreTheSpans) {
  HwConfig hw = small_npu();
  hw.mac_array.dtype = DType::Fp32;  // move.npuasm is an fp32 program
  const Program p = read_program_file(check_data_path("move.npuasm"));
  const auto issues = check_program(p, hw);
  EXPECT_TRUE(issues.empty()) << dump(issues);
  // The upsampling MOVE: in span 24 fp32 = 96 bytes, out span 96 fp32 = 384 bytes.
  const auto ops = sram_operands(p.instructions.at(2), DType::Fp32);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(std::string(ops[0].name), "in");
  EXPECT_EQ(ops[0].bytes, 96u);
  EXPECT_FALSE(ops[0].write);
  EXPECT_EQ(std::string(ops[1].name), "out");
  EXPECT_EQ(ops[1].addr, 0x200u);
  EXPECT_EQ(ops[1].bytes, 384u);
  EXPECT_TRUE(ops[1].write);
  // A dimension past rank that is used is a shape error (the text format cannot hold it).
  Program q = p;
  std::get<MoveParams>(q.instructions[1].params).extent[4] = 2;
  const auto bad = check_program(q, hw);
  ASSERT_EQ(bad.size(), 1u) << dump(bad);
  EXPECT_TRUE(contains(bad[0].message, "dimension 4 is past rank=3 but has extent 2")) << bad[0].message;
}

TEST(Check, FusionOperandsSampleIsClean) {
  const auto issues = check_program(read_program_file(check_data_path("fusion_operands.npuasm")), small_npu());
  EXPECT_TRUE(issues.empty()) << dump(issues);
}

TEST(Check, FusionOperandsPastTheSramCapacity) {
  // small_npu: 64 KiB = 0x10000 bytes of SRAM, int8 (1 byte per element).
  // CONV cin=16: in_scale is 16 B, so it fits at 0xfff0 ([0xfff0, 0x10000)) and not at 0xfff8.
  // GEMM k=32: in_scale is 32 B (k, not n = 8): fits at 0xffe0, not at 0xffe1.
  // ACT elems=256: res is 256 B: fits at 0xff00, not at 0xff01.
  auto program = [](std::uint32_t conv_scale, std::uint32_t gemm_scale, std::uint32_t act_res) {
    Program p;
    Instruction conv;
    conv.op = Opcode::Conv;
    ConvParams c;
    c.c_in = 16, c.h_in = c.w_in = 4, c.c_out = 8;
    c.in_addr = 0x0, c.w_addr = 0x100, c.out_addr = 0x200;
    c.epilogue.has_in_scale = true, c.epilogue.in_scale_addr = conv_scale;
    conv.params = c;
    Instruction gemm;
    gemm.op = Opcode::Gemm;
    GemmParams g{0x0, 0x200, 0x400, 4, 8, 32, {}};
    g.epilogue.has_in_scale = true, g.epilogue.in_scale_addr = gemm_scale;
    gemm.params = g;
    Instruction act;
    act.op = Opcode::Act;
    ActParams a{ActOp::Relu, 0x0, 0x400, 0, 256, 1};
    a.has_residual = true, a.residual_addr = act_res;
    act.params = a;
    p.instructions = {conv, gemm, act};
    return p;
  };
  const auto fits = check_program(program(0xfff0, 0xffe0, 0xff00), small_npu());
  EXPECT_TRUE(fits.empty()) << dump(fits);
  const auto issues = check_program(program(0xfff8, 0xffe1, 0xff01), small_npu());
  ASSERT_EQ(issues.size(), 3u) << dump(issues);
  for (const auto& i : issues) EXPECT_EQ(i.kind, CheckKind::SramRange);
  EXPECT_TRUE(contains(issues[0].message, "instruction #0 CONV: operand 'in_scale' [0xfff8, 0x10008) (16 bytes) ends "
                                          "past the SRAM capacity of 65536 bytes (0x10000)"))
      << issues[0].message;
  EXPECT_TRUE(contains(issues[1].message, "instruction #1 GEMM: operand 'in_scale' [0xffe1, 0x10001) (32 bytes)"))
      << issues[1].message;
  EXPECT_TRUE(contains(issues[2].message, "instruction #2 ACT: operand 'res' [0xff01, 0x10001) (256 bytes)"))
      << issues[2].message;
  // With the flags off, the addresses are not operands and are not checked.
  Program off = program(0xfff8, 0xffe1, 0xff01);
  std::get<ConvParams>(off.instructions[0].params).epilogue.has_in_scale = false;
  std::get<GemmParams>(off.instructions[1].params).epilogue.has_in_scale = false;
  std::get<ActParams>(off.instructions[2].params).has_residual = false;
  EXPECT_TRUE(check_program(off, small_npu()).empty());
}

TEST(Check, RowWiseOpsAndBroadcastShapes) {
  Program p;
  auto add = [&](Opcode op, auto params) {
    Instruction i;
    i.op = op;
    i.params = params;
    p.instructions.push_back(i);
  };
  ActParams softmax{ActOp::Softmax, 0, 0x100, 0, 100, 3};  // 100 elements are not 3 rows
  add(Opcode::Act, softmax);
  ActParams ln{ActOp::LayerNorm, 0, 0x100, 0x200, 96, 3};
  ln.alpha = 1e-5f;
  ln.has_param = false;  // gamma/beta left out by the program builder
  add(Opcode::Act, ln);
  GemmParams g{0, 0, 0, 4, 4, 4, {}};
  g.epilogue.act = ActOp::Softmax;
  add(Opcode::Gemm, g);
  EltwiseParams inner0{EltwiseOp::Add, 0, 0, 0, 64};
  inner0.b_elems = 4;
  inner0.b_inner = 0;
  add(Opcode::Eltwise, inner0);
  EltwiseParams stray{EltwiseOp::Sub, 0, 0, 0, 64};
  stray.b_inner = 16;  // without b_elems: no broadcast, so b_inner means nothing
  add(Opcode::Eltwise, stray);
  HostParams h;
  h.nodes = -2;
  add(Opcode::Host, h);
  const auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 6u) << dump(issues);
  EXPECT_EQ(issues[0].message,
            "instruction #0 ACT: softmax: elems=100 is not a multiple of channels=3 (for softmax channels is the "
            "number of rows, each elems/channels long)");
  EXPECT_EQ(issues[1].message,
            "instruction #1 ACT: op=layer_norm has no param operand; give param=ADDRESS of gamma[D] then beta[D] "
            "(D = elems/channels)");
  EXPECT_EQ(issues[2].message,
            "instruction #2 GEMM: act=softmax is row-wise and not an epilogue activation; run it as a stand-alone "
            "ACT op=softmax after the CONV/GEMM");
  EXPECT_EQ(issues[3].message, "instruction #3 ELTWISE: 'b_inner' is 0, it must be >= 1");
  EXPECT_TRUE(contains(issues[4].message, "instruction #4 ELTWISE: b_inner=16 / b_offset=0 are given without "
                                          "b_elems, so they have no effect"))
      << issues[4].message;
  EXPECT_EQ(issues[5].message, "instruction #5 HOST: 'nodes' is -2, it must be >= 0");
  for (const auto& i : issues) EXPECT_EQ(i.kind, CheckKind::Shape);
}

TEST(Check, StoreRowsThatOverlapInDdr) {
  // Output rows are 256 B; a row stride of 200 B makes the store overwrite itself.
  Program p = double_buffered();
  std::get<DmaDesc>(p.instructions[5].params).ddr_stride_bytes[0] = 200;
  const auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "STORE rows overlap in DDR: stride[0]=200 B < extent[0]*elem=256 B"));
}

TEST(Check, UnbalancedTokens) {
  // Without the wait of the last STORE, cp2st is pushed 4 times (the 4 CONVs) and waited on 3
  // times; the issue points at the last push (CONV tile 3, #12).
  Program p = double_buffered();
  p.instructions[13].wait.clear();
  auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_EQ(issues[0].kind, CheckKind::Token);
  EXPECT_EQ(issues[0].index, 12u);
  EXPECT_TRUE(contains(issues[0].message, "token cp2st is pushed 4 times but waited on 3 times"));

  // One wait too many on st2cp: 2 pushes, 3 waits; it points at the last wait (#12).
  p = double_buffered();
  p.instructions[7].wait.push_back({Queue::Store, Queue::Compute});
  issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_TRUE(contains(issues[0].message, "token st2cp is pushed 2 times but waited on 3 times; a wait without a "
                                          "push blocks the cp queue forever"));
  EXPECT_EQ(issues[0].index, 12u);
}

TEST(Check, TokensOnTheWrongQueue) {
  // Built in memory (the reader refuses these): a LOAD pushing cp2st and a CONV waiting on
  // ld2st, and a token from a queue to itself.
  Program p = double_buffered();
  p.instructions[0].push.push_back({Queue::Compute, Queue::Store});
  p.instructions[4].wait.push_back({Queue::Load, Queue::Store});
  p.instructions[5].push.push_back({Queue::Store, Queue::Store});
  const auto issues = check_program(p, small_npu());
  const auto tokens = of_kind(issues, CheckKind::Token);
  ASSERT_GE(tokens.size(), 3u) << dump(issues);
  EXPECT_TRUE(contains(tokens[0].message, "#0 LOAD (layer conv1): runs on the ld queue but pushes 'cp2st', which "
                                          "only the cp queue may push"));
  EXPECT_TRUE(contains(tokens[1].message, "#4 CONV (layer conv1): runs on the cp queue but waits on 'ld2st'"));
  EXPECT_TRUE(contains(tokens[2].message, "pushes a token from the st queue to itself"));
  EXPECT_TRUE(of_kind(issues, CheckKind::Deadlock).empty());  // not checked while tokens are wrong
}

TEST(Check, BalancedTokensThatDeadlock) {
  // Each queue waits for the other before pushing what the other needs: 1 push and 1 wait
  // per token (balanced), yet neither instruction can ever start.
  Program p;
  Instruction c;
  c.op = Opcode::Sync;
  c.params = SyncParams{Queue::Compute};
  c.wait = {{Queue::Store, Queue::Compute}};
  c.push = {{Queue::Compute, Queue::Store}};
  c.source_line = 7;
  Instruction s = c;
  s.params = SyncParams{Queue::Store};
  s.wait = {{Queue::Compute, Queue::Store}};
  s.push = {{Queue::Store, Queue::Compute}};
  s.source_line = 8;
  p.instructions = {c, s};
  const auto issues = check_program(p, small_npu());
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_EQ(issues[0].kind, CheckKind::Deadlock);
  EXPECT_EQ(issues[0].source_line, 7);
  EXPECT_TRUE(contains(issues[0].message, "the queues deadlock: the cp queue at #0 (line 7) waits on st2cp; the st "
                                          "queue at #1 (line 8) waits on cp2st"))
      << issues[0].message;

  // Swapping the double-buffered program's first STORE and its CONV in the same pattern:
  // the first CONV also waits on st2cp, which only a STORE after it can push.
  Program q = double_buffered();
  q.instructions[4].wait.push_back({Queue::Store, Queue::Compute});
  q.instructions[13].push.push_back({Queue::Store, Queue::Compute});
  const auto dq = check_program(q, small_npu());
  ASSERT_EQ(dq.size(), 1u) << dump(dq);
  EXPECT_EQ(dq[0].kind, CheckKind::Deadlock);
  EXPECT_EQ(dq[0].index, 4u);
}

TEST(Check, DataTypeMustMatchTheArray) {
  HwConfig hw = small_npu();
  hw.mac_array.dtype = DType::Fp16;
  const auto issues = check_program(double_buffered(), hw);
  // fp16 elements double every operand; the largest, out1, becomes [0x8000, 0xc000) which
  // still fits in 64 KiB, so the only issue is the type.
  ASSERT_EQ(issues.size(), 1u) << dump(issues);
  EXPECT_EQ(issues[0].kind, CheckKind::DataType);
  EXPECT_TRUE(contains(issues[0].message, "program dtype int8 differs from the MAC array dtype fp16 of small-npu"));
}

TEST(Check, SramOperandSizes) {
  const Program p = double_buffered();
  // CONV tile 0: in [16, 9, 32] = 4608 B, w [32, 16, 3, 3] = 4608 B, out [32, 8, 32] = 8192 B,
  // bias 32 x int32 = 128 B.
  const auto ops = sram_operands(p.instructions[4], DType::Int8);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_STREQ(ops[0].name, "in");
  EXPECT_EQ(ops[0].bytes, 4608u);
  EXPECT_EQ(ops[1].bytes, 4608u);
  EXPECT_EQ(ops[2].bytes, 8192u);
  EXPECT_TRUE(ops[2].write);
  EXPECT_STREQ(ops[3].name, "bias");
  EXPECT_EQ(ops[3].bytes, 128u);
  // LOAD tile 1: extent 320 x 16 of 1 B = 5120 B written to SRAM.
  const auto ld = sram_operands(p.instructions[3], DType::Int8);
  ASSERT_EQ(ld.size(), 1u);
  EXPECT_EQ(ld[0].bytes, 5120u);
  EXPECT_TRUE(ld[0].write);
  // GEMM m=4 n=5 k=6 in fp16 with scale_shift: a 4*6*2 = 48, b 6*5*2 = 60, out 4*5*2 = 40,
  // scale_shift 2 * 5 * 4 = 40 B.
  Instruction g;
  g.op = Opcode::Gemm;
  GemmParams gp{0, 0, 0, 4, 5, 6, {}};
  gp.epilogue.has_scale_shift = true;
  g.params = gp;
  const auto gops = sram_operands(g, DType::Fp16);
  ASSERT_EQ(gops.size(), 4u);
  EXPECT_EQ(gops[0].bytes, 48u);
  EXPECT_EQ(gops[1].bytes, 60u);
  EXPECT_EQ(gops[2].bytes, 40u);
  EXPECT_STREQ(gops[3].name, "scale_shift");
  EXPECT_EQ(gops[3].bytes, 40u);
}

TEST(Check, SramOperandSizesOfTheNewOps) {
  // layer_norm: 240 elements in 12 rows of D = 20, fp16:
  // in/out 240 x 2 = 480 B; param gamma[20] + beta[20] of 4 B = 160 B.
  Instruction ln;
  ln.op = Opcode::Act;
  ActParams a{ActOp::LayerNorm, 0x0, 0x200, 0x400, 240, 12};
  ln.params = a;
  const auto lops = sram_operands(ln, DType::Fp16);
  ASSERT_EQ(lops.size(), 3u);
  EXPECT_EQ(lops[0].bytes, 480u);
  EXPECT_EQ(lops[1].bytes, 480u);
  EXPECT_STREQ(lops[2].name, "param");
  EXPECT_EQ(lops[2].bytes, 160u);
  // softmax reads no param: in and out only.
  a.op = ActOp::Softmax;
  ln.params = a;
  EXPECT_EQ(sram_operands(ln, DType::Fp16).size(), 2u);
  // ELTWISE over 1000 fp32 elements with a per-row b of 10: a/out 4000 B, b 10 x 4 = 40 B.
  Instruction e;
  e.op = Opcode::Eltwise;
  EltwiseParams ep{EltwiseOp::RDiv, 0x0, 0x1000, 0x2000, 1000};
  ep.b_elems = 10;
  ep.b_inner = 100;
  e.params = ep;
  const auto eops = sram_operands(e, DType::Fp32);
  ASSERT_EQ(eops.size(), 3u);
  EXPECT_EQ(eops[0].bytes, 4000u);
  EXPECT_STREQ(eops[1].name, "b");
  EXPECT_EQ(eops[1].bytes, 40u);
  EXPECT_EQ(eops[2].bytes, 4000u);
  // HOST touches no SRAM.
  Instruction h;
  h.op = Opcode::Host;
  h.params = HostParams{1000, 5, 64, 64, 1};
  EXPECT_TRUE(sram_operands(h, DType::Int8).empty());
}

TEST(Check, SramOperandSizesWithTheFusionOperands) {
  // CONV fp16 (2 B): cin 12, 5x5, cout 8, 3x3, pad 1, group 4 -> hout = wout = 5 + 2 - 3 + 1 = 5.
  // in 12*5*5*2 = 600, w 8*(12/4)*3*3*2 = 432, out 8*5*5*2 = 400, in_scale cin*2 = 24 (dtype
  // elements, not 4-byte parameters), bias 8*4 = 32, residual 400; in .npuasm key order.
  Instruction conv;
  conv.op = Opcode::Conv;
  ConvParams c;
  c.c_in = 12, c.h_in = c.w_in = 5, c.c_out = 8, c.kh = c.kw = 3, c.group = 4;
  c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 1;
  c.epilogue.has_in_scale = true, c.epilogue.in_scale_addr = 0x900;
  c.epilogue.has_bias = true;
  c.epilogue.has_residual = true;
  conv.params = c;
  const auto cops = sram_operands(conv, DType::Fp16);
  ASSERT_EQ(cops.size(), 6u);
  const char* cnames[] = {"in", "w", "out", "in_scale", "bias", "residual"};
  const std::uint64_t cbytes[] = {600, 432, 400, 24, 32, 400};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_STREQ(cops[i].name, cnames[i]);
    EXPECT_EQ(cops[i].bytes, cbytes[i]) << cnames[i];
    EXPECT_EQ(cops[i].write, i == 2) << cnames[i];
  }
  EXPECT_EQ(cops[3].addr, 0x900u);
  // GEMM fp32 (4 B), m 4, n 5, k 6: a 96, b 120, out 80, in_scale k*4 = 24 (k, not n).
  Instruction gemm;
  gemm.op = Opcode::Gemm;
  GemmParams g{0, 0, 0, 4, 5, 6, {}};
  g.epilogue.has_in_scale = true, g.epilogue.in_scale_addr = 0x40;
  gemm.params = g;
  const auto gops = sram_operands(gemm, DType::Fp32);
  ASSERT_EQ(gops.size(), 4u);
  EXPECT_EQ(gops[0].bytes, 96u);
  EXPECT_EQ(gops[1].bytes, 120u);
  EXPECT_EQ(gops[2].bytes, 80u);
  EXPECT_STREQ(gops[3].name, "in_scale");
  EXPECT_EQ(gops[3].addr, 0x40u);
  EXPECT_EQ(gops[3].bytes, 24u);
  EXPECT_FALSE(gops[3].write);
  // ACT layer_norm fp16, 240 elements in 12 rows of 20, with res: in, res, out 240*2 = 480
  // each, param gamma[20] + beta[20] of 4 B = 160; res is read, right after in.
  Instruction ln;
  ln.op = Opcode::Act;
  ActParams a{ActOp::LayerNorm, 0x0, 0x200, 0x400, 240, 12};
  a.has_residual = true, a.residual_addr = 0x600;
  ln.params = a;
  const auto lops = sram_operands(ln, DType::Fp16);
  ASSERT_EQ(lops.size(), 4u);
  const char* lnames[] = {"in", "res", "out", "param"};
  const std::uint64_t lbytes[] = {480, 480, 480, 160};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_STREQ(lops[i].name, lnames[i]);
    EXPECT_EQ(lops[i].bytes, lbytes[i]) << lnames[i];
    EXPECT_EQ(lops[i].write, i == 2) << lnames[i];
  }
  EXPECT_EQ(lops[1].addr, 0x600u);
  // Element-wise ACT int8, 100 elements: in, res, out of 100 B.
  a = ActParams{ActOp::Sigmoid, 0x0, 0x200, 0, 100, 1};
  a.has_residual = true;
  ln.params = a;
  const auto sops = sram_operands(ln, DType::Int8);
  ASSERT_EQ(sops.size(), 3u);
  EXPECT_STREQ(sops[1].name, "res");
  EXPECT_EQ(sops[1].bytes, 100u);
}

}  // namespace
}  // namespace npu::isa

#include "npu/base/csv.hpp"

TEST(CsvField, QuotesCommasQuotesAndLineBreaksOnly) {
  // RFC 4180: enclose in quotes when the field holds , " CR or LF; double inner quotes.
  EXPECT_EQ(npu::csv_field("conv1"), "conv1");
  EXPECT_EQ(npu::csv_field("bn,1"), "\"bn,1\"");
  EXPECT_EQ(npu::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(npu::csv_field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(npu::csv_field("a\rb"), "\"a\rb\"");
  EXPECT_EQ(npu::csv_field("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");  // non-ASCII passes unchanged
}
