// Bad strategy YAML files, one row each: `npu compile resnet18 --strategy FILE.yaml`.
#include <string>
#include <vector>

#include "bad_input_cases.hpp"

namespace {

using npu::test::BadCase;

const std::vector<BadCase> kStrategyCases = {
    BadCase{"empty file", "", ": error: empty strategy file; expected a map with keys 'name' and 'passes'"},
    BadCase{"only a comment", "# nothing yet\n", ": error: empty strategy file"},
    BadCase{"two documents", "name: a\npasses: []\n---\nname: b\npasses: []\n",
            ":3:1: error: file has 2 YAML documents; a strategy file is one document"},
    BadCase{"1 MB line", "name: a\npasses: []\n# " + std::string(1 << 20, 'x') + "\n",
            ":3: error: line 3 is longer than the limit of 65536 bytes (1048578 bytes)"},
    BadCase{"unknown pass", "name: a\npasses: [fold-batchnorn]\n", ":2:10: error: unknown pass 'fold-batchnorn' (did you mean 'fold-batchnorm'?) (allowed: "},
    BadCase{"1000-byte pass name", "name: a\npasses: [" + std::string(1000, 'p') + "]\n",
            "unknown pass '" + std::string(80, 'p') + "...(1000 bytes)'"},
    BadCase{"pass listed twice", "name: a\npasses: [fuse-bias, fuse-bias]\n", "pass 'fuse-bias' is listed twice"},
    // A built-in's name on other passes would pass for that built-in in every table (a `none`
    // row that is not the baseline); the same passes under the name stay allowed.
    BadCase{"built-in name, other passes", "name: none\npasses: [fold-batchnorm]\n",
            ":1:1: error: strategy name 'none' is a built-in strategy's (passes: []), and this file's passes "
            "differ; give it a name of its own, e.g. name: my-none"},
    BadCase{"unknown key", "name: a\npasses: []\npass: [x]\n",
            ":3:1: error: unknown key 'pass' (allowed: name, passes, overlap, traffic_weight)"},
    BadCase{"unknown overlap mode", "name: a\npasses: [fuse-layers]\noverlap: cached\n",
            ":3:10: error: overlap 'cached' is not a depth-first overlap mode (allowed: auto, recompute, cache)"},
    BadCase{"overlap without fuse-layers", "name: a\npasses: [fuse-bias]\noverlap: cache\n",
            ":3:1: error: key 'overlap' applies to depth-first stacks only: add fuse-layers to 'passes' or remove it"},
    BadCase{"overlap as a list", "name: a\npasses: [fuse-layers]\noverlap: [cache]\n",
            ":3:1: error: 'overlap' must be one word, e.g. overlap: cache (allowed: auto, recompute, cache), not a list"},
    BadCase{"overlap given twice", "name: a\npasses: [fuse-layers]\noverlap: cache\noverlap: recompute\n",
            ":4:1: error: key 'overlap' is given twice; give each key once"},
    BadCase{"traffic_weight as a percentage", "name: a\npasses: [fuse-layers]\ntraffic_weight: 5%\n",
            ":3:17: error: traffic_weight '5%' is not a plain decimal number (unquoted); e.g. traffic_weight: 1"},
    BadCase{"negative traffic_weight", "name: a\npasses: [fuse-layers]\ntraffic_weight: -1\n",
            ":3:17: error: traffic_weight -1 is out of range [0, 100]"},
    BadCase{"traffic_weight above 100", "name: a\npasses: [fuse-layers]\ntraffic_weight: 101\n",
            ":3:17: error: traffic_weight 101 is out of range [0, 100]"},
    BadCase{"traffic_weight overflowing a double", "name: a\npasses: [fuse-layers]\ntraffic_weight: 1e400\n",
            ":3:17: error: traffic_weight 1e400 is out of range [0, 100]"},
    BadCase{"traffic_weight nan", "name: a\npasses: [fuse-layers]\ntraffic_weight: .nan\n",
            ":3:17: error: traffic_weight '.nan' is not a plain decimal number"},
    BadCase{"traffic_weight in hex", "name: a\npasses: [fuse-layers]\ntraffic_weight: 0x1\n",
            ":3:17: error: traffic_weight '0x1' is not a plain decimal number"},
    BadCase{"traffic_weight quoted", "name: a\npasses: [fuse-layers]\ntraffic_weight: \"2\"\n",
            ":3:17: error: traffic_weight '2' is not a plain decimal number (unquoted)"},
    BadCase{"traffic_weight as a list", "name: a\npasses: [fuse-layers]\ntraffic_weight: [1]\n",
            ":3:1: error: 'traffic_weight' must be a number in [0, 100]"},
    BadCase{"traffic_weight without fuse-layers", "name: a\npasses: [fuse-bias]\ntraffic_weight: 1\n",
            ":3:1: error: key 'traffic_weight' applies to depth-first stacks only: add fuse-layers to 'passes' or remove it"},
    BadCase{"tab-indented line", "name: a\npasses:\n\t- fuse-layers\n",
            ":3: error: malformed YAML: line 3 is indented with a tab character (illegal block entry at 3:2)\n"
            "  YAML indents with spaces only"},
    BadCase{"passes given twice", "name: a\npasses: [fuse-bias]\npasses: [fuse-layers]\n",
            ":3:1: error: key 'passes' is given twice; give each key once"},
    BadCase{"missing passes", "name: a\n", "error: missing key 'passes'"},
    BadCase{"not a map", "- a\n- b\n", "error: a strategy file is a map with keys 'name' and 'passes'"},
    // A NUL after a comment made yaml-cpp 0.7 loop for ever (fuzz_hw_config found it in the
    // shared YAML path); "# c" is 3 bytes, so the NUL is line 1, column 4.
    BadCase{"NUL byte after a comment", std::string("# c\0\n, e\n", 9),
            ":1:4: error: byte 0x00 (a control character) is not allowed in YAML"},
    // Newcomer probe round 3 (issue 27): UTF-16 and UTF-32 text, named by its byte-order mark.
    BadCase{"UTF-16LE file", std::string("\xff\xfen\0a\0m\0e\0:\0 \0a\0\n\0", 18),
            ":1:1: error: the file is encoded in UTF-16LE (byte-order mark FF FE), not UTF-8"},
    BadCase{"UTF-32BE byte-order mark", std::string("\0\0\xfe\xffname: a\n", 12),
            ":1:1: error: the file is encoded in UTF-32BE (byte-order mark 00 00 FE FF), not UTF-8"},
    // yaml-cpp 0.7's LoadAll looped for ever on a ',' outside a flow collection (#1040).
    BadCase{"comma outside a flow collection", "name: a\npasses: []\n---\n, b\n",
            ":4:1: error: malformed YAML: unexpected ','"},
};

TEST(BadStrategyCases, EachIsRejectedWithItsMessageAndExitStatus) {
  const std::string dir = npu::test::fresh_dir("bad-strategy");
  int i = 0;
  for (const BadCase& c : kStrategyCases) {
    const std::string path = dir + "/case" + std::to_string(i++) + ".yaml";
    npu::test::write_bytes(path, c.input);
    npu::test::expect_case(c, "cd " + npu::test::shq(NPU_SOURCE_DIR) + " && " + npu::test::npu_tool() +
                                  " compile resnet18 --hw configs/edge-npu-ddr4.yaml --strategy " + npu::test::shq(path) +
                                  " -o " + npu::test::shq(dir + "/out.npuasm"));
  }
}

}  // namespace
