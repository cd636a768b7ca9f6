// Bad .npuasm programs, one row each: tests/hw/data/two_layer.npuasm with text replaced,
// checked with `npu asm check --hw configs/edge-npu-ddr4.yaml`. Fragments follow docs/isa.md
// ("Errors", "Static checks").
#include <string>
#include <vector>

#include "bad_input_cases.hpp"

namespace {

using npu::test::BadCase;

/// two_layer.npuasm with each "FROM=>TO" of `spec` ("||"-separated) replaced once; a part
/// without "=>" is appended as a line.
std::string program_text(const std::string& spec) {
  return npu::test::edited(npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/tests/hw/data/two_layer.npuasm"), spec, "\n");
}

std::string tokens(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::string("cp2st");
  return s;
}

const std::string kConv2 = "cin=16 hin=16 win=16 cout=16 kh=1 kw=1";

const std::vector<BadCase> kCases = {
    // 16 x 2^30 x 2^30 x 16 x 1 x 1 = 2^68 > 2^64 - 1 (was reported as "0 MACs" and hung `npu run`).
    BadCase{"CONV MACs over 64 bits", kConv2 + "=>cin=16 hin=1073741824 win=1073741824 cout=16 kh=1 kw=1",
            "CONV MACs c_out x h_out x w_out x c_in/group x kh x kw: 16 x 1073741824 x 1073741824 x 16 x 1 x 1 "
            "exceeds the limit of 18446744073709551615 (2^64 - 1)"},
    // (2^31 - 1)^3 > 2^64.
    BadCase{"GEMM MACs over 64 bits",
            "GEMM layer=g a=0x0 b=0x0 out=0x0 m=2147483647 n=2147483647 k=2147483647",
            "GEMM MACs m x n x k: 2147483647 x 2147483647 x 2147483647 exceeds the limit of 18446744073709551615"},
    // HOST waits `cycles` core cycles in one wait; 10^15 or 2^64 - 1 would overflow the 64-bit
    // picosecond clock at 1 MHz (10^6 ps a cycle: 2^63 ps / 10^6 = 9.2 x 10^12 cycles), so
    // 10^12 is the limit (npu/isa/host_limits.hpp); it hung `npu run` before.
    BadCase{"HOST cycles 10^15", "HOST layer=nms cycles=1000000000000000 macs=0 rd=0 wr=0 nodes=1",
            "HOST cycles=1000000000000000 is above the limit of 1000000000000 core cycles (1000 s at 1 GHz)"},
    BadCase{"HOST cycles 2^64 - 1", "HOST layer=nms cycles=18446744073709551615 macs=0 rd=0 wr=0 nodes=1",
            "HOST cycles=18446744073709551615 is above the limit of 1000000000000 core cycles"},
    BadCase{"HOST cycles summing above the limit",
            "HOST layer=h1 cycles=600000000000 macs=0 rd=0 wr=0 nodes=1||"
            "HOST layer=h2 cycles=600000000000 macs=0 rd=0 wr=0 nodes=1",
            "the HOST instructions up to this one wait more than 1000000000000 core cycles in all (1000 s at 1 GHz)"},
    BadCase{"quoted name with a space", "layer=conv2 in=0x20000=>layer=\"my layer\" in=0x20000",
            "quoted layer '\"my layer\"' contains a space\n  .npuasm names are single words and are not quoted: write "
            "it without quotes and spaces, e.g. layer=my_layer"},
    BadCase{"65 push tokens", "push=cp2st=>push=" + tokens(65), "'push' has 65 values; at most 64 are allowed"},
    BadCase{"65 wait tokens", "wait=cp2st=>wait=" + tokens(65), "'wait' has 65 values; at most 64 are allowed"},
    BadCase{"unknown mnemonic", "CONV  layer=conv2=>CONVV layer=conv2", "unknown mnemonic 'CONVV'"},
    BadCase{"NUL in a mnemonic", std::string("CONV  layer=conv2=>CO\0NV layer=conv2", 36),
            "unknown mnemonic 'CO\\x00NV'"},
    BadCase{"1000-byte mnemonic", "CONV  layer=conv2=>" + std::string(1000, 'A') + " layer=conv2",
            "unknown mnemonic '" + std::string(80, 'A') + "...(1000 bytes)'"},
    BadCase{"1 MB line", "# " + std::string(1 << 20, 'x'), "is longer than the limit of 65536 bytes (1048578 bytes)"},
    BadCase{"unsupported version", ".npuasm 1=>.npuasm 2", "unsupported .npuasm version 2"},
    BadCase{"unknown directive", ".tensr x", "unknown directive '.tensr'"},
    BadCase{"duplicate key", "layer=conv2 in=0x20000=>layer=conv2 layer=conv2 in=0x20000", "duplicate key 'layer'"},
    BadCase{"missing value", "layer=conv2 in=0x20000=>layer=conv2 in=", "missing value after 'in='"},
    BadCase{"malformed number", kConv2 + "=>cin=1x6 hin=16 win=16 cout=16 kh=1 kw=1",
            "unexpected 'x6' after the number '1' in 'cin'"},
    BadCase{"value over 32 bits", kConv2 + "=>cin=99999999999 hin=16 win=16 cout=16 kh=1 kw=1",
            "value 99999999999 of 'cin' is out of range"},
    BadCase{"value over 64 bits", kConv2 + "=>cin=99999999999999999999999 hin=16 win=16 cout=16 kh=1 kw=1",
            "value 99999999999999999999999 of 'cin' is out of range (more than 64 bits)"},
    BadCase{"negative value", kConv2 + "=>cin=-1 hin=16 win=16 cout=16 kh=1 kw=1",
            "value -1 of 'cin' is out of range: it must not be negative"},
    BadCase{"unknown key", "layer=conv2 in=0x20000=>layer=conv2 foo=1 in=0x20000", "unknown key 'foo' for CONV"},
    BadCase{"unknown token", "push=cp2st=>push=cp2xx", "unknown token 'cp2xx'"},
    BadCase{"empty list element", "push=cp2st=>push=cp2st,,cp2st", "empty element in the list of 'push'"},
    BadCase{"SRAM address over 32 bits", "in=0x20000=>in=0x100000000", "value 0x100000000 of 'in' is out of range"},
    BadCase{"unclosed quote", "layer=conv2 in=0x20000=>layer=\"conv2 in=0x20000", "unclosed quote in layer '\"conv2'"},
    BadCase{"quoted name", "layer=conv2 in=0x20000=>layer=\"conv2\" in=0x20000", "quoted layer '\"conv2\"'"},
    BadCase{"unknown activation", "act=relu=>act=relu7", "unknown act 'relu7'"},
    BadCase{"binary bytes as a key", "layer=conv2 in=0x20000=>layer=conv2 \x01\xff=1 in=0x20000",
            "unknown key '\\x01\\xff' for CONV"},
    // Static checks (exit 1 with the issue listed).
    BadCase{"window larger than the input", kConv2 + "=>cin=16 hin=16 win=16 cout=16 kh=20 kw=1",
            "the vertical window (20 taps) is larger than the padded input (16 + 0 pad)"},
    BadCase{"operand past the SRAM", "in=0x20000=>in=0xfffff0", "ends past the SRAM capacity of 1048576 bytes"},
    BadCase{"undeclared tensor", "tensor=output=>tensor=nosuch", "names tensor 'nosuch', which is not declared"},
    BadCase{"missing required key", kConv2 + "=>hin=16 win=16 cout=16 kh=1 kw=1", "missing required key 'cin' for CONV"},
    // int8 requantisation operands (docs/isa.md, "int8 requantisation").
    BadCase{"requant zero point out of int8", "act=relu wait=ld2cp,ld2cp=>requant=0xc0000 zp=0,300 act=relu wait=ld2cp,ld2cp",
            "value 300 of 'zp' is out of range [-128, 127]"},
    BadCase{"requant with a sigmoid epilogue", "act=relu wait=ld2cp,ld2cp=>requant=0xc0000 act=sigmoid wait=ld2cp,ld2cp",
            "requant with act=sigmoid: the int8 epilogue applies the activation as the clamp, so act must be none, "
            "relu or clip"},
    BadCase{"clamp without requant", "act=relu wait=ld2cp,ld2cp=>clamp=0,127 act=relu wait=ld2cp,ld2cp",
            "zp/clamp given without requant (they are part of the int8 requantisation)"},
    BadCase{"requant in an fp32 program", "dtype=int8=>dtype=fp32||act=relu wait=ld2cp,ld2cp=>requant=0xc0000 act=relu "
            "wait=ld2cp,ld2cp", "requant is an int8 operand but the program dtype is fp32"},
    // MOVE (docs/isa.md): a line appended to the program.
    BadCase{"MOVE with 7 dimensions", "MOVE layer=m in=0x0 out=0x60000 extent=1,1,1,1,1,1,1",
            "'extent' has 7 values; at most 6 are allowed"},
    BadCase{"MOVE stride list shorter than extent", "MOVE layer=m in=0x0 out=0x60000 extent=4,4 in_stride=1",
            "'in_stride' has 1 value; it takes exactly 2\n  extent has 2 dimensions, so 'in_stride' takes 2 element "
            "strides, innermost first"},
    BadCase{"MOVE extent 0", "MOVE layer=m in=0x0 out=0x60000 extent=0", "value 0 of 'extent' is out of range: it must be >= 1"},
    // int8: in [0x0, 0x40) and out [0x10, 0x50) share 48 bytes.
    BadCase{"MOVE in and out overlap", "MOVE layer=m in=0x0 out=0x10 extent=64",
            "MOVE in [0x0, 0x40) overlaps out [0x10, 0x50); give the copy a separate output slot"},
    // in span = 1 + (2-1) x 1 + (2-1) x 4294967295 = 4294967297 bytes from 0x60000.
    BadCase{"MOVE in span past the SRAM", "MOVE layer=m in=0x60000 out=0x0 extent=2,2 in_stride=1,4294967295",
            "operand 'in' [0x60000, 0x100060001) (4294967297 bytes) ends past the SRAM capacity of 1048576 bytes"},
    // Several elements onto one out element: an out stride of 0, and 4 x 4 elements onto 7
    // places (out strides 1 and 1: the second does not clear the first's span of 4).
    BadCase{"MOVE out stride 0", "MOVE layer=m in=0x0 out=0x60000 extent=24 in_stride=1 out_stride=0",
            "MOVE out_stride 0 (extent 24) does not clear the 1 element(s) the smaller out strides span"},
    BadCase{"MOVE out strides that alias", "MOVE layer=m in=0x0 out=0x60000 extent=4,4 in_stride=1,4 out_stride=1,1",
            "MOVE out_stride 1 (extent 4) does not clear the 4 element(s) the smaller out strides span"},
    // 65536 x 65537 = 4295032832 > 2^32 - 1.
    BadCase{"MOVE of more than 2^32 - 1 elements",
            "MOVE layer=m in=0x0 out=0x60000 extent=65536,65537 in_stride=0,0 out_stride=0,0",
            "MOVE of 4295032832 elements; one MOVE moves at most 4294967295 (split it)"},
};

TEST(BadAsmCases, EachIsRejectedWithItsMessageAndExitStatus) {
  const std::string dir = npu::test::fresh_dir("bad-asm");
  int i = 0;
  for (const BadCase& c : kCases) {
    const std::string path = dir + "/case" + std::to_string(i++) + ".npuasm";
    npu::test::write_bytes(path, program_text(c.input));
    npu::test::expect_case(c, npu::test::npu_tool() + " asm check " + npu::test::shq(path) +
                                  " --hw " + npu::test::shq(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"));
  }
}

// The same CONV through `npu run`: rejected by the checker before simulating (it used to hang).
TEST(BadAsmCases, RunRefusesTheOverflowingConvInsteadOfHanging) {
  const std::string dir = npu::test::fresh_dir("bad-asm-run");
  npu::test::write_bytes(dir + "/p.npuasm",
                         program_text(kConv2 + "=>cin=16 hin=1073741824 win=1073741824 cout=16 kh=1 kw=1"));
  const BadCase c{"run", "", "exceeds the limit of 18446744073709551615 (2^64 - 1)"};
  npu::test::expect_case(c, "timeout 60 " + npu::test::npu_tool() + " run " + npu::test::shq(dir + "/p.npuasm") +
                                " --hw " + npu::test::shq(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"));
}

}  // namespace
