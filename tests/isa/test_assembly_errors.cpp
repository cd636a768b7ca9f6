// Malformed .npuasm: each test feeds one bad line and asserts the exact line and column of
// the error, its reason and its hint. Columns are 1-based byte positions; they are derived
// from the text of the line with col_of() (the position of the offending characters).
#include <gtest/gtest.h>

#include <string>

#include "npu/isa/assembly.hpp"

namespace npu::isa {
namespace {

// Lines 1 and 2 of every test program; the line under test is line 3.
const std::string kHead = ".npuasm 1\n.tensor t kind=input ddr=0x0 bytes=4096\n";
const std::string kConv = "CONV    in=0x0 w=0x100 out=0x200 cin=3 hin=8 win=8 cout=4 kh=3 kw=3";
const std::string kLoad = "LOAD    tensor=t ddr=0x0 sram=0x0 extent=64";

/// 1-based column of the `nth` (0-based) occurrence of `needle` in `line`.
int col_of(const std::string& line, const std::string& needle, int nth = 0) {
  std::size_t pos = line.find(needle);
  for (int i = 0; i < nth && pos != std::string::npos; ++i) pos = line.find(needle, pos + 1);
  EXPECT_NE(pos, std::string::npos) << "'" << needle << "' not in '" << line << "'";
  return int(pos) + 1;
}

/// Reads `text` as bad.npuasm and checks "bad.npuasm:LINE:COL: error: " + a reason containing
/// `reason`, and a second line (the hint) containing `hint`.
void expect_error(const std::string& text, int line, int col, const std::string& reason,
                  const std::string& hint = "") {
  try {
    read_program(text, "bad.npuasm");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    const std::string head = "bad.npuasm:" + std::to_string(line) + ":" + std::to_string(col) + ": error: ";
    EXPECT_EQ(msg.substr(0, head.size()), head) << msg;
    const std::size_t newline = msg.find('\n');
    const std::string first = msg.substr(0, newline);
    EXPECT_NE(first.find(reason), std::string::npos) << "reason '" << reason << "' not in: " << msg;
    if (!hint.empty()) {
      ASSERT_NE(newline, std::string::npos) << "no hint line in: " << msg;
      EXPECT_EQ(msg.substr(newline, 3), "\n  ") << msg;
      EXPECT_NE(msg.find(hint, newline), std::string::npos) << "hint '" << hint << "' not in: " << msg;
    }
  }
}

void expect_line3_error(const std::string& line3, int col, const std::string& reason, const std::string& hint = "") {
  expect_error(kHead + line3 + "\n", 3, col, reason, hint);
}

TEST(AssemblyErrors, UnknownMnemonicSuggestsTheClosest) {
  const std::string line = "CONVV   in=0x0 w=0x100 out=0x200";
  expect_line3_error(line, 1, "unknown mnemonic 'CONVV'", "did you mean 'CONV'? (allowed: LOAD, STORE, CONV");
  // Mnemonics are upper case; the suggestion shows the spelling.
  expect_line3_error("  load tensor=t", 3, "unknown mnemonic 'load'", "did you mean 'LOAD'?");
}

TEST(AssemblyErrors, UnknownKeyForTheOpcodeListsTheAllowedKeys) {
  const std::string line = kConv + " sride=2";
  expect_line3_error(line, col_of(line, "sride"), "unknown key 'sride' for CONV",
                     "did you mean 'stride'? (allowed: layer, in, w, out, cin, hin, win, cout, kh, kw, stride, pad, "
                     "dilation, group, acc_in, acc_out, in_scale, bias, scale_shift, residual, mul, requant, zp, clamp, act, alpha, beta, wait, push)");
  // A key of another opcode is unknown here.
  const std::string load = kLoad + " act=relu";
  expect_line3_error(load, col_of(load, "act="), "unknown key 'act' for LOAD", "allowed: layer, tensor, ddr");
}

TEST(AssemblyErrors, MissingRequiredKeyPointsAtTheMnemonic) {
  // `out` is left out; the error points at the mnemonic (column 3 after two spaces).
  const std::string line = "  CONV  in=0x0 w=0x100 cin=3 hin=8 win=8 cout=4 kh=3 kw=3";
  expect_line3_error(line, 3, "missing required key 'out' for CONV",
                     "CONV needs in, w, out, cin, hin, win, cout, kh, kw");
}

TEST(AssemblyErrors, DuplicateKeyPointsAtTheSecondOccurrence) {
  const std::string line = kConv + " cin=5";
  expect_line3_error(line, col_of(line, "cin=", 1),
                     "duplicate key 'cin' (first given at column " + std::to_string(col_of(line, "cin=")) + ")",
                     "give each key once");
}

TEST(AssemblyErrors, MalformedNumber) {
  const std::string line = "CONV    in=zz w=0x100 out=0x200 cin=3 hin=8 win=8 cout=4 kh=3 kw=3";
  expect_line3_error(line, col_of(line, "zz"), "malformed number 'zz' for 'in'",
                     "numbers are decimal (4096) or hexadecimal with a 0x prefix (0x1000)");
  // "0x" with no digits is malformed too.
  const std::string hex = "CONV    in=0x w=0x100 out=0x200 cin=3 hin=8 win=8 cout=4 kh=3 kw=3";
  expect_line3_error(hex, col_of(hex, "0x w") , "malformed number '0x' for 'in'");
}

TEST(AssemblyErrors, MalformedFusionOperandAddresses) {
  // in_scale (CONV/GEMM) and res (ACT) are SRAM addresses: decimal or 0x-hex, 32 bits.
  const char* kAddrHint = "SRAM addresses are 32-bit byte offsets into the scratchpad (0 .. 0xffffffff)";
  const std::string bad_hex = kConv + " in_scale=0xZZ";
  expect_line3_error(bad_hex, col_of(bad_hex, "0xZZ"), "malformed number '0xZZ' for 'in_scale'",
                     "numbers are decimal (4096) or hexadecimal with a 0x prefix (0x1000)");
  const std::string tail = "GEMM    a=0x0 b=0x100 out=0x200 m=4 n=4 k=4 in_scale=0x10g";
  expect_line3_error(tail, col_of(tail, "g"), "unexpected 'g' after the number '0x10' in 'in_scale'");
  const std::string act = "ACT     op=layer_norm in=0x0 out=0x100 elems=64 channels=4 param=0x200 alpha=1e-05";
  const std::string res_hex = act + " res=0xq0";
  expect_line3_error(res_hex, col_of(res_hex, "0xq0"), "malformed number '0xq0' for 'res'");
  const std::string res_big = act + " res=0x100000000";
  expect_line3_error(res_big, col_of(res_big, "0x100000000"),
                     "value 0x100000000 of 'res' is out of range: it must fit in 32 bits (<= 0xffffffff)", kAddrHint);
  const std::string res_neg = act + " res=-64";
  expect_line3_error(res_neg, col_of(res_neg, "-64"), "value -64 of 'res' is out of range: it must not be negative",
                     kAddrHint);
  const std::string res_empty = act + " res=";
  expect_line3_error(res_empty, col_of(res_empty, "res=") + 4, "missing value after 'res='");
  const std::string res_twice = act + " res=0x300 res=0x400";
  expect_line3_error(res_twice, col_of(res_twice, "res=", 1), "duplicate key 'res' (first given at column " +
                                                                   std::to_string(col_of(res_twice, "res=")) + ")");
  // Each key belongs to its opcodes only: res is ACT's, in_scale is CONV's and GEMM's, and the
  // CONV/GEMM epilogue's residual= is not ACT's residual input.
  const std::string conv_res = kConv + " res=0x300";
  expect_line3_error(conv_res, col_of(conv_res, "res="), "unknown key 'res' for CONV");
  const std::string act_in_scale = act + " in_scale=0x300";
  expect_line3_error(act_in_scale, col_of(act_in_scale, "in_scale="), "unknown key 'in_scale' for ACT",
                     "(allowed: layer, op, in, res, out, elems, channels, param, requant, zp, clamp, mask, alpha, beta, wait, push)");
  const std::string act_residual = act + " residual=0x300";
  expect_line3_error(act_residual, col_of(act_residual, "residual="), "unknown key 'residual' for ACT");
}

TEST(AssemblyErrors, NegativeValueIsOutOfRange) {
  const std::string line = kConv + " pad=-1";
  expect_line3_error(line, col_of(line, "-1"), "value -1 of 'pad' is out of range: it must not be negative");
}

TEST(AssemblyErrors, ZeroExtentIsOutOfRange) {
  const std::string line = "LOAD    tensor=t ddr=0x0 sram=0x0 extent=4,0 stride=64";
  // The column is that of the zero, the second element of the list.
  expect_line3_error(line, col_of(line, "0 stride"), "value 0 of 'extent' is out of range: it must be >= 1",
                     "every extent is an element count >= 1");
  const std::string dim = "GEMM    a=0 b=0 out=0 m=0 n=1 k=1";
  expect_line3_error(dim, col_of(dim, "0 n="), "value 0 of 'm' is out of range: it must be >= 1");
}

TEST(AssemblyErrors, SramAddressBeyond32BitsIsOutOfRange) {
  const std::string line = "LOAD    tensor=t ddr=0x0 sram=0x100000000 extent=64";
  expect_line3_error(line, col_of(line, "0x100000000"),
                     "value 0x100000000 of 'sram' is out of range: it must fit in 32 bits (<= 0xffffffff)",
                     "SRAM addresses are 32-bit byte offsets");
}

TEST(AssemblyErrors, ValueBeyond64BitsIsOutOfRange) {
  const std::string line = "LOAD    tensor=t ddr=0x10000000000000000 sram=0x0 extent=64";
  expect_line3_error(line, col_of(line, "0x1000"), "value 0x10000000000000000 of 'ddr' is out of range (more than 64 bits)");
}

TEST(AssemblyErrors, DimensionBeyondInt32IsOutOfRange) {
  const std::string line = "CONV    in=0x0 w=0x100 out=0x200 cin=2147483648 hin=8 win=8 cout=4 kh=3 kw=3";
  expect_line3_error(line, col_of(line, "2147483648"), "value 2147483648 of 'cin' is out of range: it must be <= 2147483647");
}

TEST(AssemblyErrors, UnknownTokenName) {
  const std::string line = kConv + " push=cp2xx";
  expect_line3_error(line, col_of(line, "cp2xx"), "unknown token 'cp2xx'",
                     "tokens are FROM2TO between the queues ld, cp, st: ld2cp, ld2st, cp2ld, cp2st, st2ld, st2cp");
  // A queue cannot signal itself.
  const std::string self = kConv + " wait=ld2cp,cp2cp";
  expect_line3_error(self, col_of(self, "cp2cp"), "unknown token 'cp2cp'");
}

TEST(AssemblyErrors, TokenPushedFromTheWrongQueue) {
  // LOAD runs on the load queue, so it can only push ld2cp or ld2st.
  const std::string line = kLoad + " push=ld2cp,cp2st";
  expect_line3_error(line, col_of(line, "cp2st"),
                     "LOAD runs on the ld queue and cannot push token 'cp2st' (it is pushed by the cp queue)",
                     "a ld instruction may push ld2cp, ld2st");
}

TEST(AssemblyErrors, TokenWaitedOnInTheWrongQueue) {
  const std::string line = kConv + " wait=ld2st";
  expect_line3_error(line, col_of(line, "ld2st"),
                     "CONV runs on the cp queue and cannot wait on token 'ld2st' (it is waited on by the st queue)",
                     "a cp instruction may wait on ld2cp, st2cp");
}

TEST(AssemblyErrors, SyncTokensFollowItsQueueWhateverTheKeyOrder) {
  // `queue` comes after `push`: the check still uses the SYNC's queue (st).
  const std::string line = "SYNC    push=ld2cp queue=st";
  expect_line3_error(line, col_of(line, "ld2cp"), "SYNC runs on the st queue and cannot push token 'ld2cp'",
                     "a st instruction may push st2ld, st2cp");
}

TEST(AssemblyErrors, UnknownActivationInTheEpilogue) {
  const std::string line = kConv + " act=relu7";
  expect_line3_error(line, col_of(line, "relu7"), "unknown act 'relu7'",
                     "did you mean 'relu'? (allowed: none, relu, clip, leaky_relu, sigmoid, silu, hard_sigmoid, "
                     "hard_swish, erf, exp, sqrt, reciprocal, tanh, gelu, abs, neg, pow, identity, gelu_tanh, log, floor, "
                     "ceil, not, trunc, to_bool)");
}

TEST(AssemblyErrors, RowWiseOpsAreNotEpilogueActivations) {
  const std::string line = kConv + " act=softmax";
  expect_line3_error(line, col_of(line, "softmax"), "act 'softmax' is row-wise and not an epilogue activation",
                     "run it as a stand-alone 'ACT op=softmax' after the CONV/GEMM; act takes none, relu");
  const std::string gemm = "GEMM    a=0x0 b=0x100 out=0x200 m=4 n=4 k=4 act=layer_norm alpha=1e-5";
  expect_line3_error(gemm, col_of(gemm, "layer_norm"), "act 'layer_norm' is row-wise and not an epilogue activation");
}

TEST(AssemblyErrors, ScaleShiftIsNotAnEpilogueActivation) {
  const std::string line = kConv + " act=scale_shift";
  expect_line3_error(line, col_of(line, "scale_shift"), "unknown act 'scale_shift' for an epilogue",
                     "a fused BatchNorm is 'scale_shift=ADDRESS' in the epilogue");
}

TEST(AssemblyErrors, UnknownActOp) {
  // (tanh became an op; tanhh is a typo of it.)
  const std::string line = "ACT     op=tanhh in=0x0 out=0x100 elems=64";
  expect_line3_error(line, col_of(line, "tanhh"), "unknown ACT op 'tanhh'",
                     "did you mean 'tanh'? (allowed: relu, clip, leaky_relu, sigmoid, silu, hard_sigmoid, hard_swish, "
                     "scale_shift, erf, exp, sqrt, reciprocal, tanh, gelu, abs, neg, pow, identity, softmax, "
                     "layer_norm, gelu_tanh, rms_norm, softmax_online, rope, log, floor, ceil, not, trunc, to_bool)");
}

TEST(AssemblyErrors, UnknownEltwiseOp) {
  // (sub became an op; subtract is not one.)
  const std::string line = "ELTWISE op=subtract a=0x0 b=0x40 out=0x80 elems=64";
  expect_line3_error(line, col_of(line, "subtract"), "unknown ELTWISE op 'subtract'",
                     "(allowed: add, mul, sub, div, max, min, pow, rsub, rdiv, lerp, lerp_round, equal, less, greater, less_equal, "
                     "greater_equal, and, or, xor, mod, fmod)");
}

TEST(AssemblyErrors, PowAndLayerNormNeedAlpha) {
  expect_line3_error("ACT     op=pow in=0x0 out=0x100 elems=64", 1, "missing required key 'alpha' for op=pow",
                     "pow needs alpha=EXPONENT");
  expect_line3_error("ACT     op=layer_norm in=0x0 out=0x100 elems=64 channels=4 param=0x200", 1,
                     "missing required key 'alpha' for op=layer_norm", "layer_norm needs alpha=EPS");
  const std::string line = "ACT     op=softmax in=0x0 out=0x100 elems=64 channels=4 alpha=1";
  expect_line3_error(line, col_of(line, "alpha"), "'alpha' is not used by op=softmax",
                     "pow (exponent), layer_norm and rms_norm (eps)");
}

TEST(AssemblyErrors, RopeNeedsItsTableAndHeadDim) {
  expect_line3_error("ACT     op=rope in=0x0 out=0x0 elems=64 channels=4 alpha=8", 1, "missing required key 'param' for op=rope",
                     "cos[d] then sin[d] for each of the channels rows");
  expect_line3_error("ACT     op=rope in=0x0 out=0x0 elems=64 channels=4 param=0x200", 1,
                     "missing required key 'alpha' for op=rope", "rope needs alpha=HEAD_DIM");
}

TEST(AssemblyErrors, SoftmaxOnlineNeedsItsStateScaleAndFirstFlag) {
  expect_line3_error("ACT     op=softmax_online in=0x0 out=0x0 elems=64 channels=4 alpha=0.125 beta=1", 1,
                     "missing required key 'param' for op=softmax_online",
                     "running max m[rows], sum l[rows] and correction corr[rows]");
  expect_line3_error("ACT     op=softmax_online in=0x0 out=0x0 elems=64 channels=4 param=0x200 alpha=0.125", 1,
                     "missing required key 'beta' for op=softmax_online", "beta=FIRST");
}

TEST(AssemblyErrors, LayerNormNeedsItsParameters) {
  expect_line3_error("ACT     op=layer_norm in=0x0 out=0x100 elems=64 channels=4 alpha=1e-5", 1,
                     "missing required key 'param' for op=layer_norm",
                     "gamma[D] then beta[D] in SRAM, D = elems/channels");
  const std::string line = "ACT     op=softmax in=0x0 out=0x100 elems=64 channels=4 param=0x200";
  expect_line3_error(line, col_of(line, "param"), "'param' is not used by op=softmax",
                     "gamma[D] and beta[D] for op=layer_norm");
  expect_line3_error("ACT     op=rms_norm in=0x0 out=0x100 elems=64 channels=4 alpha=1e-5", 1,
                     "missing required key 'param' for op=rms_norm", "gamma[D] in SRAM, D = elems/channels");
}

TEST(AssemblyErrors, BroadcastKeysOutOfRange) {
  const std::string elt = "ELTWISE op=add a=0x0 b=0x40 out=0x80 elems=64";
  const std::string inner0 = elt + " b_elems=4 b_inner=0";
  expect_line3_error(inner0, col_of(inner0, "b_inner=") + 8, "value 0 of 'b_inner' is out of range: it must be >= 1",
                     "'b_inner' is how many consecutive elements share one b element");
  const std::string elems0 = elt + " b_elems=0";
  expect_line3_error(elems0, col_of(elems0, "b_elems=") + 8, "value 0 of 'b_elems' is out of range: it must be >= 1",
                     "leave it out when b has elems elements");
  const std::string bad_offset = elt + " b_elems=4 b_offset=-3";
  expect_line3_error(bad_offset, col_of(bad_offset, "-3"), "value -3 of 'b_offset' is out of range");
  const std::string typo = elt + " b_elem=4";
  expect_line3_error(typo, col_of(typo, "b_elem="), "unknown key 'b_elem' for ELTWISE",
                     "did you mean 'b_elems'? (allowed: layer, op, a, b, out, elems, b_elems, b_inner, b_offset, "
                     "requant, zp, clamp, wait, push)");
}

TEST(AssemblyErrors, MalformedHostLines) {
  // Every figure is required; a missing one points at the mnemonic.
  expect_line3_error("HOST    layer=nms cycles=100 macs=5 rd=64 nodes=2", 1, "missing required key 'wr' for HOST",
                     "HOST needs cycles, macs, rd, wr, nodes");
  const std::string neg = "HOST    cycles=-1 macs=5 rd=64 wr=0 nodes=2";
  expect_line3_error(neg, col_of(neg, "-1"), "value -1 of 'cycles' is out of range: it must not be negative");
  const std::string junk = "HOST    cycles=12us macs=5 rd=64 wr=0 nodes=2";
  expect_line3_error(junk, col_of(junk, "us"), "unexpected 'us' after the number '12' in 'cycles'");
  const std::string key = "HOST    cycles=1 macs=5 rd=64 wr=0 nodes=2 bytes=3";
  expect_line3_error(key, col_of(key, "bytes"), "unknown key 'bytes' for HOST",
                     "(allowed: layer, cycles, macs, rd, wr, nodes, wait, push)");
  const std::string queue = "HOST    cycles=1 macs=5 rd=64 wr=0 nodes=2 wait=cp2st";
  expect_line3_error(queue, col_of(queue, "cp2st"),
                     "HOST runs on the cp queue and cannot wait on token 'cp2st' (it is waited on by the st queue)",
                     "a cp instruction may wait on ld2cp, st2cp");
  expect_line3_error("HOS     cycles=1", 1, "unknown mnemonic 'HOS'", "did you mean 'HOST'?");
}

TEST(AssemblyErrors, UnknownPoolOp) {
  const std::string line = "POOL    op=average in=0x0 out=0x100 c=4 hin=8 win=8 kh=2 kw=2 stride=2";
  expect_line3_error(line, col_of(line, "average"), "unknown POOL op 'average'", "(allowed: max, avg, global_avg, avg_pad)");
}

TEST(AssemblyErrors, LoadOfAnUndeclaredTensorSuggestsADeclaredOne) {
  const std::string line = "LOAD    tensor=tt ddr=0x0 sram=0x0 extent=64";
  expect_line3_error(line, col_of(line, "tt"), "LOAD names tensor 'tt', which is not declared",
                     "did you mean 't'? (declared tensors: t)");
  // Declarations must come before their first use.
  expect_error(".npuasm 1\nSTORE tensor=later ddr=0x0 sram=0x0 extent=4\n.tensor later kind=output ddr=0 bytes=4\n",
               2, 14, "STORE names tensor 'later', which is not declared", "declare it first");
}

TEST(AssemblyErrors, MissingVersionHeader) {
  expect_error("# a comment\n\n" + kLoad + "\n", 3, 1, "missing '.npuasm 1' version header before 'LOAD'",
               "the first line that is not blank or a comment must be '.npuasm 1'");
  expect_error("# only comments\n", 1, 1, "missing '.npuasm 1' version header", "start the file with");
  expect_error("", 1, 1, "missing '.npuasm 1' version header");
}

TEST(AssemblyErrors, UnsupportedVersion) {
  expect_error(".npuasm 2\n", 1, 9, "unsupported .npuasm version 2", "this reader supports version 1 only");
  expect_error(".npuasm 1\n.npuasm 1\n", 2, 1, "duplicate '.npuasm' version header");
}

TEST(AssemblyErrors, MalformedDirectives) {
  // '.npuasm' with no number: the column is just past the directive.
  expect_error(".npuasm\n", 1, 8, "malformed directive: '.npuasm' needs a version number", "write '.npuasm 1'");
  expect_error(".npuasm 1 beta\n", 1, 11, "unexpected 'beta' after the version number");
  const std::string tensor = ".tensor kind=weight ddr=0x0 bytes=64";
  expect_error(".npuasm 1\n" + tensor + "\n", 2, col_of(tensor, "kind"),
               "malformed directive: '.tensor' needs a name first",
               "write '.tensor NAME kind=input|weight|output|intermediate|kv_cache ddr=");  // every kind the reader takes
  expect_error(".npuasm 1\n.tensor w kind=weight bytes=64\n", 2, 1, "missing required key 'ddr'");
  const std::string program = ".program name=x speed=fast";
  expect_error(".npuasm 1\n" + program + "\n", 2, col_of(program, "speed"), "unknown key 'speed' for .program",
               "(allowed: name, strategy, dtype, hw, array, sram, dataflow)");
  expect_error(".npuasm 1\n.program dtype=int4\n", 2, 16, "unknown dtype 'int4'", "did you mean 'int8'?");
  const std::string compiled_for = ".program name=x hw=edge array=32by32";
  expect_error(".npuasm 1\n" + compiled_for + " sram=1024 dataflow=output_stationary\n", 2, col_of(compiled_for, "32by32"),
               "array='32by32' is not ROWSxCOLS", "write array=ROWSxCOLS, e.g. array=32x32");
  // All four or none (new-user finding: a subset made `npu asm fmt` fail with an internal error),
  // and a dataflow the config knows.
  const std::string partial = ".program name=x hw=edge array=32x32";
  expect_error(".npuasm 1\n" + partial + "\n", 2, col_of(partial, "array"),
               "'array' without 'sram': the config a program was compiled for needs all four",
               "write hw=NAME array=ROWSxCOLS sram=BYTES dataflow=");
  const std::string dataflow = ".program name=x hw=edge array=32x32 sram=1024 dataflow=foo";
  expect_error(".npuasm 1\n" + dataflow + "\n", 2, col_of(dataflow, "foo"), "unknown dataflow 'foo'",
               "allowed: weight_stationary, output_stationary, input_stationary");
}

TEST(AssemblyErrors, UnknownDirective) {
  expect_error(".npuasm 1\n.tensr w kind=weight ddr=0 bytes=1\n", 2, 1, "unknown directive '.tensr'",
               "did you mean '.tensor'? (allowed: .npuasm, .program, .tensor)");
}

TEST(AssemblyErrors, DuplicateTensorDeclaration) {
  expect_error(kHead + ".tensor t kind=weight ddr=0x100 bytes=4\n", 3, 9,
               "tensor 't' is already declared on line 2", "give every tensor a unique name");
}

TEST(AssemblyErrors, GarbageAfterANumber) {
  const std::string line = "CONV    in=0x0 w=0x100 out=0x200 cin=3abc hin=8 win=8 cout=4 kh=3 kw=3";
  expect_line3_error(line, col_of(line, "abc"), "unexpected 'abc' after the number '3' in 'cin'");
  // Hex digits run as far as they go; 'g' is the garbage.
  const std::string hex = "LOAD    tensor=t ddr=0x1fg sram=0x0 extent=64";
  expect_line3_error(hex, col_of(hex, "g sram"), "unexpected 'g' after the number '0x1f' in 'ddr'");
}

TEST(AssemblyErrors, GarbageInsideAList) {
  const std::string line = kConv + " stride=2,2)";
  expect_line3_error(line, col_of(line, ")"), "unexpected ')' after the number '2' in 'stride'");
  const std::string empty = "LOAD    tensor=t ddr=0x0 sram=0x0 extent=4,,4 stride=4,16";
  expect_line3_error(empty, col_of(empty, ",4 stride"), "empty element in the list of 'extent'");
}

TEST(AssemblyErrors, StrayWordAfterAValue) {
  const std::string line = kConv + " relu";
  expect_line3_error(line, col_of(line, "relu"), "unexpected 'relu' after the value of 'kw'",
                     "fields are written key=value with no spaces around '='");
  const std::string spaced = "LOAD    tensor= t ddr=0x0 sram=0x0 extent=64";
  expect_line3_error(spaced, col_of(spaced, "= t") + 1, "missing value after 'tensor='");
}

TEST(AssemblyErrors, AlphaOnAnActivationThatTakesNone) {
  const std::string line = kConv + " act=relu alpha=0.1";
  expect_line3_error(line, col_of(line, "alpha"), "'alpha' is not used by act=relu",
                     "relu takes no alpha/beta; alpha/beta are used by clip (min, max)");
}

TEST(AssemblyErrors, ClipNeedsBothBounds) {
  expect_line3_error(kConv + " act=clip alpha=0", 1, "missing required key 'beta' for act=clip",
                     "clip needs alpha=MIN beta=MAX");
}

TEST(AssemblyErrors, NanIsRejected) {
  const std::string line = kConv + " act=leaky_relu alpha=nan";
  expect_line3_error(line, col_of(line, "nan"), "'alpha' must not be NaN");
  const std::string bad = kConv + " act=leaky_relu alpha=0.1.2";
  expect_line3_error(bad, col_of(bad, ".2"), "unexpected '.2' after the number '0.1' in 'alpha'");
}

TEST(AssemblyErrors, StrideCountMustMatchExtent) {
  const std::string line = "LOAD    tensor=t ddr=0x0 sram=0x0 extent=4,4,4 stride=16";
  expect_line3_error(line, col_of(line, "16"), "'stride' has 1 value",
                     "extent has 3 dimensions, so 'stride' takes 2 values (DDR bytes)");
  expect_line3_error("LOAD    tensor=t ddr=0x0 sram=0x0 extent=4,4", 1,
                     "missing required key 'stride' (extent has 2 dimensions)", "stride=ROW_BYTES");
  const std::string one = "LOAD    tensor=t ddr=0x0 sram=0x0 extent=4 stride=4";
  expect_line3_error(one, col_of(one, "stride"), "'stride' is not used when 'extent' has one dimension");
}

TEST(AssemblyErrors, ElementSizeMustBeAPowerOfTwoUpTo8) {
  const std::string line = kLoad + " elem=3";
  expect_line3_error(line, col_of(line, "3"), "value 3 of 'elem' is out of range", "1, 2, 4 or 8");
}

TEST(AssemblyErrors, PadTakesOneOrFourValues) {
  const std::string line = kConv + " pad=1,1,1";
  expect_line3_error(line, col_of(line, "1,1,1"), "'pad' has 3 values",
                     "'pad' takes P (all sides) or TOP,LEFT,BOTTOM,RIGHT");
}

TEST(AssemblyErrors, ScaleShiftActNeedsItsParameters) {
  expect_line3_error("ACT     op=scale_shift in=0x0 out=0x100 elems=64 channels=4", 1,
                     "missing required key 'param' for op=scale_shift", "scale[channels] then shift[channels]");
  const std::string line = "ACT     op=relu in=0x0 out=0x100 elems=64 param=0x200";
  expect_line3_error(line, col_of(line, "param"), "'param' is not used by op=relu");
}

TEST(AssemblyErrors, OnlyTheFirstErrorIsReportedWithItsLine) {
  // Line 4 is fine, line 5 is bad, line 6 is bad too: the reader stops at line 5.
  // Column of the 0: kConv, one space, "group=" (6 characters), then the value.
  expect_error(kHead + "\n" + kLoad + "\n" + kConv + " group=0\nFOO\n", 5, int(kConv.size()) + 8,
               "value 0 of 'group'");
}

TEST(AssemblyErrors, QuotedNamesAreRejectedAtTheQuote) {
  // .npuasm names are one word, never quoted: `name="x` (unclosed) points at the quote.
  const std::string unclosed = ".program name=\"x";
  expect_error(".npuasm 1\n" + unclosed + "\n", 2, col_of(unclosed, "\""), "unclosed quote in name '\"x'",
               "write it without the quote, e.g. name=x");
  const std::string quoted = ".program name=\"x\" strategy=none";
  expect_error(".npuasm 1\n" + quoted + "\n", 2, col_of(quoted, "\""), "quoted name '\"x\"'", "remove the quotes");
  const std::string layer = kLoad + " layer=\"conv1";
  expect_line3_error(layer, col_of(layer, "\""), "unclosed quote in layer '\"conv1'");
  const std::string short_form = ".program \"net";
  expect_error(".npuasm 1\n" + short_form + "\n", 2, 10, "unclosed quote in name '\"net'");
  expect_error(".npuasm 1\n.tensor \"t kind=input ddr=0 bytes=4\n", 2, 9, "unclosed quote in tensor name '\"t'");
}

}  // namespace
}  // namespace npu::isa
