// Bad DDR address traces and `npu ddr` arguments, one row each, replayed with
// `npu ddr run --hw configs/edge-npu-ddr4.yaml --trace FILE [ARGS]`. Fragments follow
// docs/ddr.md ("Trace formats") and traces/README.md.
#include <string>
#include <vector>

#include "bad_input_cases.hpp"

namespace {

using npu::test::BadCase;

const std::vector<BadCase> kCases = {
    BadCase{"empty trace", "", "error: no requests (the trace is empty or holds only comments and blank lines)"},
    BadCase{"only comments", "# nothing\n\n# here\n", "error: no requests"},
    BadCase{"address over 64 bits", "0x1ffffffffffffffff READ 0\n",
            ":1:1: error: address '0x1ffffffffffffffff' exceeds 64 bits"},
    BadCase{"not hexadecimal", "0xzz READ 0\n", ":1:1: error: '0xzz' is not a hexadecimal address"},
    // Junk after hex digits, after a valid address or after more digits than 64 bits hold:
    // not an address (the digits are read before the junk is looked at).
    BadCase{"hex digits then junk", "0x40g READ 0\n", ":1:1: error: '0x40g' is not a hexadecimal address"},
    BadCase{"too many hex digits then junk", "0x1ffffffffffffffffz READ 0\n",
            ":1:1: error: '0x1ffffffffffffffffz' is not a hexadecimal address"},
    BadCase{"sign before the hex digits", "+40 READ 0\n", ":1:1: error: '+40' is not a hexadecimal address"},
    BadCase{"cycle digits then junk", "0x40 READ 12a\n", "cycle '12a' is not a non-negative decimal integer"},
    BadCase{"cycle past 64 bits then junk", "0x40 READ 99999999999999999999x\n",
            "cycle '99999999999999999999x' is not a non-negative decimal integer"},
    BadCase{"unknown command", "0x40 READX 0\n", ":1:6: error: unknown command 'READX' (READ or WRITE; "},
    BadCase{"missing command", "0x40\n", ":1:5: error: missing the command (READ or WRITE)"},
    BadCase{"missing cycle", "0x40 READ\n", "error: missing the cycle after the command"},
    BadCase{"cycle not a number", "0x40 READ soon\n", "cycle 'soon' is not a non-negative decimal integer"},
    BadCase{"negative cycle", "0x40 READ -1\n", "cycle '-1' is not a non-negative decimal integer"},
    BadCase{"cycle out of range", "0x40 READ 1000000000000000000\n", "cycle 1000000000000000000 is out of range"},
    BadCase{"extra token", "0x40 READ 1 extra\n", ":1:13: error: unexpected 'extra' after the cycle"},
    BadCase{"decreasing cycles", "0x40 READ 5\n0x80 READ 2\n", ":2:11: error: cycle 2 is before the previous request's cycle 5"},
    // The edge preset holds 16 GiB = 0x400000000 bytes.
    BadCase{"address past the capacity", "0x400000000 READ 0\n",
            "error: address 0x400000000 is past the DDR capacity of 0x400000000 bytes"},
    BadCase{"1 MB line", "0x40 READ 0 " + std::string(1 << 20, 'x') + "\n",
            ":1: error: line 1 is longer than the limit of 65536 bytes"},
    BadCase{"NUL in the command", std::string("0x40 RE\0AD 0\n", 13), "unknown command 'RE\\x00AD'"},
    BadCase{"1000-byte token", "0x40 " + std::string(1000, 'R') + " 0\n",
            "unknown command '" + std::string(80, 'R') + "...(1000 bytes)'"},
    BadCase{"binary bytes", "\x01\x02\xff READ 0\n", "'\\x01\\x02\\xff' is not a hexadecimal address"},
    // Valid UTF-8 that is not ASCII is escaped too: printed as itself, a no-break space made the
    // token look like a valid address (new-user finding).
    BadCase{"no-break space", "0x40\xc2\xa0READ 0\n", "'0x40\\xc2\\xa0READ' is not a hexadecimal address"},
    BadCase{"UTF-8 byte-order mark", "\xef\xbb\xbf" "0x0 READ 0\n",
            ":1:1: error: the file starts with a UTF-8 byte-order mark (EF BB BF), before the address '0x0'"},
    BadCase{"ramulator: unknown command", "LOAD 0x40\n", "unknown command 'LOAD' (LD or ST)", 1, "--format ramulator"},
    BadCase{"ramulator: missing address", "LD\n", "missing the address after the command", 1, "--format ramulator"},
    BadCase{"ramulator: extra token", "LD 0x40 7\n", "unexpected '7' after the address", 1, "--format ramulator"},
    BadCase{"ramulator: hex digits without 0x", "LD 1f40\n",
            "'1f40' is not an address: Ramulator reads an address without 0x as decimal", 1, "--format ramulator"},
    BadCase{"ramulator: address over 64 bits", "ST 0x10000000000000000\n", "exceeds 64 bits", 1, "--format ramulator"},
    BadCase{"unknown format", "0x40 READ 0\n", "unknown trace format 'csv'", 1, "--format csv"},
    BadCase{"queue depth 2e9", "0x40 READ 0\n", "--queue-depth: error: must be from 1 to 4096, got 2000000000", 1,
            "--queue-depth 2000000000"},
    BadCase{"queue depth 0", "0x40 READ 0\n", "--queue-depth: error: must be from 1 to 4096, got 0", 1,
            "--queue-depth 0"},
    BadCase{"unknown page policy", "0x40 READ 0\n", "unknown --page-policy 'half'", 1, "--page-policy half"},
};

TEST(BadTraceCases, EachIsRejectedWithItsMessageAndExitStatus) {
  const std::string dir = npu::test::fresh_dir("bad-trace");
  int i = 0;
  for (const BadCase& c : kCases) {
    const std::string path = dir + "/case" + std::to_string(i++) + ".trace";
    npu::test::write_bytes(path, c.input);
    npu::test::expect_case(c, npu::test::npu_tool() + " ddr run --hw " +
                                  npu::test::shq(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml") +
                                  " --trace " + npu::test::shq(path) + " " + c.args);
  }
}

}  // namespace
