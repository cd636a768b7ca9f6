// The int8 requantisation operand (docs/isa.md, "int8 requantisation"): requant=, zp=, clamp=
// on CONV, GEMM, ACT and ELTWISE -- reading, canonical writing, round trips, the SRAM operand
// it adds, relocation, and every bad input with its exact message.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/requant_operand.hpp"
#include "npu/isa/sram_relocate.hpp"

using namespace npu;
using namespace npu::isa;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kRequantSample = std::string(NPU_SOURCE_DIR) + "/tests/isa/data/int8_requant.npuasm";
const std::string kRequantHead = ".npuasm 1\n.program dtype=int8\n";

/// The whole message of reading line 3 = `line` (head + line).
std::string requant_error_of(const std::string& line) {
  try {
    read_program(kRequantHead + line + "\n", "bad.npuasm");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kHint =
    "\n  requant=ADDRESS is int8 requantisation (docs/isa.md): CONV/GEMM with act none/relu/clip, ACT "
    "relu/clip/identity/scale_shift, softmax/layer_norm/rms_norm (row statistics) or any element-wise op (a lookup "
    "table), ELTWISE add/mul (lerp/lerp_round: their weight table), POOL global_avg";

}  // namespace

TEST(RequantOperand, SampleIsCanonicalAndRoundTrips) {
  const std::string text = slurp(kRequantSample);
  ASSERT_FALSE(text.empty());
  const Program p = read_program(text, "int8_requant.npuasm");
  EXPECT_EQ(write_program(p), text);
  EXPECT_EQ(read_program(write_program(p)), p);
  const auto& c = std::get<ConvParams>(p.instructions[1].params).epilogue.requant;
  EXPECT_TRUE(c.on);
  EXPECT_EQ(c.addr, 0x1040u);
  EXPECT_EQ(c.in_zp, -3);
  EXPECT_EQ(c.out_zp, 5);
  EXPECT_EQ(c.clamp_min, 5);
  EXPECT_EQ(c.clamp_max, 127);
  // GEMM: requant alone keeps the defaults (zp 0,0, clamp -128,127), written without them.
  const auto& g = std::get<GemmParams>(p.instructions[2].params).epilogue.requant;
  EXPECT_TRUE(g.on);
  EXPECT_EQ(g.in_zp, 0);
  EXPECT_EQ(g.clamp_min, -128);
  const auto& bn = std::get<ActParams>(p.instructions[6].params).requant;  // ACT scale_shift
  EXPECT_TRUE(bn.on);
  EXPECT_EQ(bn.in_zp, 1);
  EXPECT_EQ(bn.out_zp, -3);
  const auto& gap = std::get<PoolParams>(p.instructions[7].params).requant;  // POOL global_avg
  EXPECT_EQ(gap.addr, 0x1480u);
  EXPECT_EQ(gap.in_zp, 5);
  EXPECT_EQ(gap.out_zp, -2);
  const auto& sig = std::get<ActParams>(p.instructions[8].params).requant;  // ACT sigmoid: a table
  EXPECT_EQ(sig.clamp_min, -100);
  const auto& mul = std::get<EltwiseParams>(p.instructions[9].params).requant;  // ELTWISE mul
  EXPECT_EQ(mul.b_zp, -128);
  const auto& e = std::get<EltwiseParams>(p.instructions[10].params).requant;
  EXPECT_EQ(e.in_zp, 5);
  EXPECT_EQ(e.b_zp, -128);
  EXPECT_EQ(e.out_zp, -1);
}

TEST(RequantOperand, KeysInAnyOrderReadTheSame) {
  const Program a = read_program(kRequantHead + "CONV in=0x0 w=0x0 out=0x0 cin=1 hin=1 win=1 cout=2 kh=1 kw=1 "
                                         "requant=0x40 zp=1,2 clamp=2,100 act=relu\n");
  const Program b = read_program(kRequantHead + "CONV clamp=2,100 act=relu zp=1,2 cout=2 requant=0x40 in=0x0 w=0x0 "
                                         "out=0x0 cin=1 hin=1 win=1 kh=1 kw=1\n");
  EXPECT_EQ(a, b);
}

TEST(RequantOperand, AddsOneSramOperandOfTheTableSize) {
  const Program p = read_program(slurp(kRequantSample));
  auto bytes_of = [&](std::size_t i) -> std::uint64_t {
    for (const SramOperand& o : sram_operands(p.instructions[i], p.dtype))
      if (std::string(o.name) == "requant") return o.bytes;
    return 0;
  };
  EXPECT_EQ(bytes_of(1), 16u * 8u);  // CONV: c_out = 16 (multiplier, shift) int32 pairs
  EXPECT_EQ(bytes_of(2), 8u * 8u);   // GEMM: n = 8 pairs
  EXPECT_EQ(bytes_of(4), 8u);        // ACT: one pair
  EXPECT_EQ(bytes_of(6), 16u * 8u);  // ACT scale_shift: one pair per channel, channels = 16
  EXPECT_EQ(bytes_of(7), 8u);        // POOL global_avg: one pair
  EXPECT_EQ(bytes_of(8), 256u);      // ACT sigmoid: a 256-entry int8 lookup table
  EXPECT_EQ(bytes_of(9), 8u);        // ELTWISE mul: one pair
  EXPECT_EQ(bytes_of(10), 28u);      // ELTWISE add: 7 int32 words
  Instruction moved = p.instructions[1];
  relocate_sram(moved, 0x100);
  EXPECT_EQ(std::get<ConvParams>(moved.params).epilogue.requant.addr, 0x1140u);
}

TEST(RequantOperand, RowwiseActTablesAreSramOperandsOfTheirWholeSize) {
  // The row-wise ACT tables (docs/isa.md, table at `requant`): softmax 256 int32 exp entries =
  // 1024 B; layer_norm / rms_norm the eps word pair then one (multiplier, shift) pair per
  // column, rows of elems / channels = 96 / 2 = 48 columns: (48 + 1) x 8 = 392 B. They were
  // listed as one 8-byte pair, so keep-resident saw the rest of a norm's table as free SRAM and
  // placed a resident tensor over it (convnext_tiny int8: "rounding_divide_by_pot: exponent
  // 1276441623 not in [0, 31]").
  auto requant_bytes = [](ActOp op) -> std::uint64_t {
    Instruction in;
    in.op = Opcode::Act;
    ActParams a;
    a.op = op;
    a.elems = 96;
    a.channels = 2;
    a.requant.on = true;
    a.requant.addr = 0x400;
    in.params = a;
    EXPECT_EQ(requant_table_bytes(in), op == ActOp::Softmax ? 1024u : 392u);
    for (const SramOperand& o : sram_operands(in, DType::Int8))
      if (std::string(o.name) == "requant") return o.bytes;
    return 0;
  };
  EXPECT_EQ(requant_bytes(ActOp::Softmax), 1024u);
  EXPECT_EQ(requant_bytes(ActOp::LayerNorm), 392u);
  EXPECT_EQ(requant_bytes(ActOp::RmsNorm), 392u);
}

TEST(RequantOperand, AvgPadTakesZpAloneAsThePaddingCode) {
  // int8 POOL avg_pad: zp=IN,IN without requant is the code of its padding taps (docs/isa.md).
  const std::string pool = "POOL op=avg_pad in=0x0 out=0x100 c=1 hin=3 win=3 kh=3 kw=3 pad=1 ";
  const Program p = read_program(kRequantHead + pool + "zp=-5,-5\n");
  const auto& pp = std::get<PoolParams>(p.instructions.at(0).params);
  EXPECT_FALSE(pp.requant.on);
  EXPECT_EQ(pp.requant.in_zp, -5);
  EXPECT_NE(write_program(p).find("zp=-5,-5"), std::string::npos) << write_program(p);  // written back
  EXPECT_EQ(requant_problem(p.instructions.at(0)), "");
  EXPECT_EQ(requant_error_of(pool + "zp=-5,3"),
            "bad.npuasm:3:66: error: zp=-5,3 on POOL avg_pad: its padding's code is the input's zero point and the "
            "pool keeps its grid, so IN and OUT are equal" + kHint);
  EXPECT_EQ(requant_error_of("POOL op=avg in=0x0 out=0x100 c=1 hin=3 win=3 kh=3 kw=3 pad=1 zp=-5,-5"),
            "bad.npuasm:3:62: error: zp/clamp given without requant (they are part of the int8 requantisation)" + kHint);
}

TEST(RequantOperand, RequantMakesTheEpilogueNonEmpty) {
  Epilogue e;
  EXPECT_TRUE(e.empty());
  e.requant.on = true;
  EXPECT_FALSE(e.empty());
}

TEST(RequantOperand, BadValuesHaveExactMessages) {
  const std::string conv = "CONV in=0x0 w=0x0 out=0x0 cin=1 hin=1 win=1 cout=1 kh=1 kw=1 requant=0x40 ";
  // Columns (1-based bytes): the CONV prefix is 74 bytes, so zp= starts at 75 and its values at
  // 78; the offending list element is pointed at ("200" at 80).
  EXPECT_EQ(requant_error_of(conv + "zp=1,200"),
            "bad.npuasm:3:80: error: value 200 of 'zp' is out of range [-128, 127]\n"
            "  int8 zero points and clamp bounds lie in [-128, 127]");
  EXPECT_EQ(requant_error_of(conv + "zp=1"),
            "bad.npuasm:3:78: error: 'zp' has 1 value; it takes exactly 2\n"
            "  zp=IN,OUT: the zero points of the input and the output");
  EXPECT_EQ(requant_error_of(conv + "zp=--1,0"),
            "bad.npuasm:3:78: error: malformed number '--1' for 'zp'\n"
            "  zero points and clamp bounds are signed decimal integers such as -128, 0 or 127");
  EXPECT_EQ(requant_error_of(conv + "clamp=10,-10"),
            "bad.npuasm:3:75: error: clamp min 10 > max -10" + kHint);
  EXPECT_EQ(requant_error_of("ELTWISE op=add a=0x0 b=0x0 out=0x0 elems=4 requant=0x40 zp=1,2"),
            "bad.npuasm:3:60: error: 'zp' has 2 values; it takes exactly 3\n"
            "  zp=A,B,OUT: the zero points of a, b and the output");
}

TEST(RequantOperand, IllegalCombinationsHaveExactMessages) {
  const std::string conv = "CONV in=0x0 w=0x0 out=0x0 cin=1 hin=1 win=1 cout=1 kh=1 kw=1 ";
  EXPECT_EQ(requant_error_of(conv + "zp=1,2"),
            "bad.npuasm:3:62: error: zp/clamp given without requant (they are part of the int8 requantisation)" + kHint);
  EXPECT_EQ(requant_error_of(conv + "residual=0x80 requant=0x40"),
            "bad.npuasm:3:76: error: requant cannot be combined with 'residual' on CONV (int8 has no rule for it; run "
            "it as a separate instruction)" + kHint);
  EXPECT_EQ(requant_error_of(conv + "requant=0x40 act=sigmoid"),
            "bad.npuasm:3:62: error: requant with act=sigmoid: the int8 epilogue applies the activation as the clamp, "
            "so act must be none, relu or clip" + kHint);
  EXPECT_EQ(requant_error_of("ACT op=sigmoid in=0x0 out=0x0 elems=4 requant=0x40 zp=1,0"),
            "bad.npuasm:3:52: error: zp on ACT op=sigmoid: its requant operand is a 256-entry lookup table that holds "
            "the zero points; give none" + kHint);
  EXPECT_EQ(requant_error_of("ACT op=relu in=0x0 res=0x10 out=0x0 elems=4 requant=0x40"),
            "bad.npuasm:3:45: error: requant cannot be combined with 'res' on ACT (use an ELTWISE add with requant)" + kHint);
  EXPECT_EQ(requant_error_of("ELTWISE op=sub a=0x0 b=0x0 out=0x0 elems=4 requant=0x40"),
            "bad.npuasm:3:44: error: requant on ELTWISE op=sub: int8 ELTWISE is add, mul, lerp or lerp_round" + kHint);
  EXPECT_EQ(requant_error_of("ACT op=softmax_online in=0x0 out=0x0 elems=4 channels=1 param=0x80 requant=0x40 alpha=1 beta=1"),
            "bad.npuasm:3:68: error: requant on ACT op=softmax_online: int8 ACT is relu, clip, identity (a rescale "
            "and a clamp), scale_shift (a per-channel affine map), softmax, layer_norm, rms_norm (integer row "
            "statistics) or an element-wise function (a lookup table); not softmax_online or rope" + kHint);
  EXPECT_EQ(requant_error_of("POOL op=max in=0x0 out=0x0 c=1 hin=2 win=2 requant=0x40"),
            "bad.npuasm:3:44: error: requant on POOL op=max: int8 POOL requantises only global_avg (max and avg keep "
            "their input's grid)" + kHint);
  EXPECT_EQ(requant_error_of("POOL op=global_avg in=0x0 out=0x0 c=1 hin=2 win=2 requant=0x40 zp=1,2,3"),
            "bad.npuasm:3:67: error: 'zp' has 3 values; it takes exactly 2\n"
            "  zp=IN,OUT: the zero points of the input and the output");
}

TEST(RequantOperand, WriterRefusesWhatTheReaderRefuses) {
  Program p;
  p.dtype = DType::Int8;
  Instruction in;
  in.op = Opcode::Eltwise;
  EltwiseParams e;
  e.op = EltwiseOp::Sub;
  e.elems = 4;
  e.requant.on = true;
  in.params = e;
  p.instructions.push_back(in);
  EXPECT_THROW(write_program(p), std::invalid_argument);
  e.op = EltwiseOp::Add;
  e.requant.clamp_max = 128;  // outside int8
  p.instructions[0].params = e;
  EXPECT_THROW(write_program(p), std::invalid_argument);
}

TEST(RequantOperand, CheckReportsRequantInAnFp32Program) {
  Program p = read_program(slurp(kRequantSample));
  p.dtype = DType::Fp32;
  HwConfig hw;
  hw.mac_array.dtype = DType::Fp32;
  hw.sram.capacity_bytes = 1 << 20;
  int dtype_issues = 0;
  for (const CheckIssue& i : check_program(p, hw))
    if (i.kind == CheckKind::DataType && i.message.find("requant is an int8 operand") != std::string::npos) ++dtype_issues;
  EXPECT_EQ(dtype_issues, 10);  // CONV, two GEMMs, four ACTs, POOL, two ELTWISEs
}

TEST(RequantOperand, SoftmaxMaskRoundTripsAndIsRefusedElsewhere) {
  // mask=-128 (docs/isa.md): an int8 softmax's inputs at code -128 weigh 0.
  const std::string line = "ACT op=softmax in=0x0 out=0x100 elems=8 channels=2 requant=0x200 zp=3,-128 mask=-128";
  const Program p = read_program(kRequantHead + line + "\n");
  const auto& r = std::get<ActParams>(p.instructions[0].params).requant;
  EXPECT_TRUE(r.mask_lowest);
  EXPECT_NE(write_program(p).find("mask=-128"), std::string::npos) << write_program(p);
  EXPECT_EQ(read_program(write_program(p)), p);
  // Without the key the flag is off, and the two programs differ.
  const Program q = read_program(kRequantHead + "ACT op=softmax in=0x0 out=0x100 elems=8 channels=2 requant=0x200 "
                                               "zp=3,-128\n");
  EXPECT_FALSE(std::get<ActParams>(q.instructions[0].params).requant.mask_lowest);
  EXPECT_FALSE(p == q);
  // Another value (column 60: the value after "mask=" at 55), another op, or no requant: refused
  // with the place and the fix.
  EXPECT_NE(requant_error_of("ACT op=softmax in=0x0 out=0x100 elems=8 requant=0x200 mask=-127")
                .find("bad.npuasm:3:60: error: mask=-127: the only mask is -128"),
            std::string::npos)
      << requant_error_of("ACT op=softmax in=0x0 out=0x100 elems=8 requant=0x200 mask=-127");
  // The column is the mask key's: 52 (after "ACT op=relu in=0x0 out=0x100 elems=8 requant=0x200 ").
  EXPECT_NE(requant_error_of("ACT op=relu in=0x0 out=0x100 elems=8 requant=0x200 mask=-128")
                .find("bad.npuasm:3:52: error: mask=-128 on ACT op=relu: only an int8 ACT op=softmax (with requant=) "
                      "has masked keys"),
            std::string::npos)
      << requant_error_of("ACT op=relu in=0x0 out=0x100 elems=8 requant=0x200 mask=-128");
  // A softmax without requant=: the missing key is the problem (the mask at column 41).
  EXPECT_NE(requant_error_of("ACT op=softmax in=0x0 out=0x100 elems=8 mask=-128")
                .find("bad.npuasm:3:41: error: mask=-128 on ACT op=softmax without requant=: the mask is part of the "
                      "int8 softmax, whose exp table requant= gives; add requant=ADDRESS"),
            std::string::npos)
      << requant_error_of("ACT op=softmax in=0x0 out=0x100 elems=8 mask=-128");
}
