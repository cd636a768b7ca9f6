// Strategies: built-in pass lists, YAML-defined strategies and their errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

using PassNames = std::vector<std::string>;

TEST(Strategy, BuiltinPassLists) {
  EXPECT_EQ(builtin_strategy_names(),
            (PassNames{"none", "conv-bn", "conv-act", "conv-bn-act", "residual", "depth-first", "transformer"}));
  EXPECT_EQ(builtin_strategy("none").passes, PassNames{});
  EXPECT_EQ(builtin_strategy("conv-bn").passes, PassNames{"fold-batchnorm"});
  EXPECT_EQ(builtin_strategy("conv-act").passes, (PassNames{"fuse-bias", "hoist-activation", "fuse-activation"}));
  EXPECT_EQ(builtin_strategy("conv-bn-act").passes,
            (PassNames{"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation"}));
  EXPECT_EQ(builtin_strategy("residual").passes,
            (PassNames{"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual", "fuse-se-gate",
               "fuse-add-layernorm"}));
  EXPECT_EQ(builtin_strategy("depth-first").passes,
            (PassNames{"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual", "fuse-se-gate",
               "fuse-add-layernorm", "fuse-gemm-epilogue", "fuse-norm-prologue", "fuse-rope", "fuse-swiglu", "fuse-attention", "fuse-layers"}));
  EXPECT_EQ(builtin_strategy("transformer").passes,
            (PassNames{"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual", "fuse-se-gate",
               "fuse-add-layernorm", "fuse-gemm-epilogue", "fuse-norm-prologue", "fuse-rope", "fuse-swiglu", "fuse-attention"}));
  EXPECT_EQ(pass_names(), (PassNames{"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual",
                             "fuse-se-gate", "fuse-add-layernorm", "fuse-gemm-epilogue", "fuse-norm-prologue", "fuse-rope", "fuse-swiglu", "fuse-attention", "fuse-layers"}));
  for (const auto& p : pass_names()) {
    auto pass = make_pass(p);
    ASSERT_TRUE(pass) << p;
    EXPECT_EQ(pass->name(), p);
    EXPECT_FALSE(pass->description().empty());
  }
}

TEST(Strategy, UnknownNameListsAllowed) {
  try {
    builtin_strategy("conv-bn-relu");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "unknown strategy 'conv-bn-relu' (allowed: none, conv-bn, conv-act, conv-bn-act, residual, depth-first, transformer)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Strategy, ParsesYaml) {
  const Strategy s = parse_strategy_yaml("name: bn-only\npasses: [fold-batchnorm]\n", "my.yaml");
  EXPECT_EQ(s.name, "bn-only");
  EXPECT_EQ(s.passes, PassNames{"fold-batchnorm"});
  EXPECT_EQ(s.source, "my.yaml");
  const Strategy block = parse_strategy_yaml("name: all\npasses:\n  - fold-batchnorm\n  - fuse-residual\n", "b.yaml");
  EXPECT_EQ(block.passes, (PassNames{"fold-batchnorm", "fuse-residual"}));
  EXPECT_EQ(parse_strategy_yaml("name: nothing\npasses: []\n").passes, PassNames{});
  // Depth-first overlap modes (docs/depth_first.md "Overlap modes"); auto when not given.
  EXPECT_EQ(s.overlap, OverlapPolicy::Auto);
  EXPECT_EQ(parse_strategy_yaml("name: c\npasses: [fuse-layers]\noverlap: cache\n").overlap, OverlapPolicy::Cache);
  EXPECT_EQ(parse_strategy_yaml("name: r\npasses: [fuse-layers]\noverlap: recompute\n").overlap,
            OverlapPolicy::Recompute);
  // Weight of DDR transfer time in the choice of stacks (docs/depth_first.md "Stacks"): 1
  // unless given.
  EXPECT_EQ(s.traffic_weight, 1.0);
  EXPECT_EQ(parse_strategy_yaml("name: f\npasses: [fuse-layers]\ntraffic_weight: 0\n").traffic_weight, 0.0);
  EXPECT_EQ(parse_strategy_yaml("name: h\npasses: [fuse-layers]\ntraffic_weight: 2.5\n").traffic_weight, 2.5);
  EXPECT_EQ(parse_strategy_yaml("name: e\npasses: [fuse-layers]\ntraffic_weight: 1e1\n").traffic_weight, 10.0);
  EXPECT_EQ(parse_strategy_yaml("name: o\npasses: [fuse-layers]\ntraffic_weight: 010\n").traffic_weight, 10.0);
}

std::string error_of(const std::string& yaml) {
  try {
    parse_strategy_yaml(yaml, "s.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Strategy, UnknownPassNamesFileLineAndAllowedNames) {
  // "fuse-all" is on line 3, column 5 (after "  - "); no pass name is within the typo distance
  // of closest_name (max(2, 8 / 3) = 2 edits), so no suggestion.
  EXPECT_EQ(error_of("name: x\npasses:\n  - fuse-all\n"),
            "s.yaml:3:5: error: unknown pass 'fuse-all' (allowed: fold-batchnorm, fuse-bias, hoist-activation, fuse-activation, fuse-residual, "
            "fuse-se-gate, fuse-add-layernorm, fuse-gemm-epilogue, fuse-norm-prologue, fuse-rope, fuse-swiglu, fuse-attention, fuse-layers)");
}

TEST(Strategy, UnknownPassSuggestsTheNearestPass) {
  // One letter dropped from "fuse-residual": edit distance 1.
  EXPECT_NE(error_of("name: x\npasses: [fuse-residul]\n").find("unknown pass 'fuse-residul' (did you mean 'fuse-residual'?)"),
            std::string::npos);
}

TEST(Strategy, MalformedFilesAreConfigErrors) {
  EXPECT_EQ(error_of("name: x\npasses: [fold-batchnorm]\nlayers: 3\n"),
            "s.yaml:3:1: error: unknown key 'layers' (allowed: name, passes, overlap, traffic_weight)");
  EXPECT_EQ(error_of("passes: []\n"), "s.yaml:1:1: error: missing key 'name' (add e.g. name: my-strategy)");
  EXPECT_NE(error_of("name: x\npasses: fold-batchnorm\n").find("s.yaml:2:9: error: 'passes' must be a list"),
            std::string::npos);
  EXPECT_NE(error_of("name: [x\n").find("s.yaml:"), std::string::npos);
  EXPECT_NE(error_of("name: [x\n").find("malformed YAML"), std::string::npos);
  EXPECT_NE(error_of("- a\n- b\n").find("a strategy file is a map"), std::string::npos);
}

TEST(Strategy, NameMustBeLettersDigitsDashUnderscoreDot) {
  // The name is written into the .npuasm program (one word) and used in file names, so
  // `name: "a/b c"` fails at load, at the value: line 1, column 7 (after `name: `).
  EXPECT_EQ(error_of("name: \"a/b c\"\npasses: []\n"),
            "s.yaml:1:7: error: strategy name 'a/b c' contains '/'; use only letters, digits, '-', '_' and '.' "
            "(it is written into the program and file names), e.g. name: my-strategy");
  // Line 2, column 9 (after "  name: "), a space first.
  EXPECT_EQ(error_of("passes: []\nname:   \"my strategy\"\n"),
            "s.yaml:2:9: error: strategy name 'my strategy' contains a space; use only letters, digits, '-', '_' "
            "and '.' (it is written into the program and file names), e.g. name: my-strategy");
  EXPECT_EQ(parse_strategy_yaml("name: My_strat-2.b\npasses: []\n").name, "My_strat-2.b");
  EXPECT_EQ(strategy_name_problem(""), "is empty");
  EXPECT_EQ(strategy_name_problem("a#b"), "contains '#'");
  EXPECT_EQ(strategy_name_problem("a\tb"), "contains a control or non-ASCII byte");
  EXPECT_EQ(strategy_name_problem("ok-1_2.x"), "");
}

TEST(Strategy, DuplicatePassIsNamed) {
  // The second fold-batchnorm is on line 4, column 5 (after "  - ").
  EXPECT_EQ(error_of("name: x\npasses:\n  - fold-batchnorm\n  - fold-batchnorm\n"),
            "s.yaml:4:5: error: pass 'fold-batchnorm' is listed twice; list each pass once (a pass already "
            "rewrites every match)");
  // Flow form: "passes: [fuse-activation, fold-batchnorm, fuse-activation]": the third item
  // starts after 42 characters of line 2: column 43.
  EXPECT_EQ(error_of("name: x\npasses: [fuse-activation, fold-batchnorm, fuse-activation]\n")
                .rfind("s.yaml:2:43: error: pass 'fuse-activation' is listed twice", 0),
            0u);
}

TEST(Strategy, FuseLayersMustBeTheLastPass) {
  // "passes: [fuse-layers, fold-batchnorm]": fold-batchnorm starts after 22 characters of
  // line 2: column 23.
  EXPECT_EQ(error_of("name: x\npasses: [fuse-layers, fold-batchnorm]\n"),
            "s.yaml:2:23: error: pass 'fold-batchnorm' is listed after fuse-layers; fuse-layers groups the layers "
            "the other passes leave into depth-first stacks, so list it last");
  EXPECT_EQ(parse_strategy_yaml("name: x\npasses: [fold-batchnorm, fuse-layers]\n").passes.back(), "fuse-layers");
}

TEST(Strategy, EmptyBuiltinNameIsAnError) {
  try {
    builtin_strategy("");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: empty strategy name (allowed: none, conv-bn, conv-act, conv-bn-act, residual, depth-first, transformer, or a strategy "
              ".yaml file)");
  }
}

TEST(Strategy, LoadsFileAndReportsMissingFile) {
  const std::string path = ::testing::TempDir() + "/strategy_test.yaml";
  {
    std::ofstream out(path);
    out << "name: mine\npasses: [fuse-activation]\n";
  }
  const Strategy s = load_strategy_file(path);
  EXPECT_EQ(s.name, "mine");
  EXPECT_EQ(s.source, path);
  std::remove(path.c_str());
  EXPECT_THROW(load_strategy_file(path), ConfigError);
}

}  // namespace
}  // namespace npu::compiler
