// compiler::pass_effects / format_pass_effects: the counts behind the experiment summary's line
// per strategy (issue 27 item 1), from decisions written out by hand.
#include <gtest/gtest.h>

#include "npu/compiler/transforms/pass_effect.hpp"

using npu::compiler::Decision;
using npu::compiler::DecisionOutcome;
using npu::compiler::format_pass_effects;
using npu::compiler::pass_effects;
using npu::compiler::Strategy;

namespace {

Decision decision(const std::string& pass, DecisionOutcome outcome, const std::string& label, const std::string& reason,
                  const std::string& verb = "") {
  Decision d;
  d.pass = pass;
  d.outcome = outcome;
  d.label = label;
  d.reason = reason;
  d.verb = verb;
  return d;
}

// conv-act on a Conv -> BN -> Relu network: fuse-bias and hoist-activation find nothing,
// fuse-activation declines both candidates (BN in between); the import pass's summary is not
// one of the strategy's passes and is left out.
TEST(PassEffect, ConvActDeclinesEveryCandidateWithItsFirstReason) {
  Strategy s;
  s.name = "conv-act";
  s.passes = {"fuse-bias", "hoist-activation", "fuse-activation"};
  const std::vector<Decision> d = {
      npu::compiler::summary_decision("infer-shapes", "net", "inferred 9 tensor shape(s)"),
      npu::compiler::summary_decision("fuse-bias", "net", "no candidate in the graph"),
      npu::compiler::summary_decision("hoist-activation", "net", "no candidate in the graph"),
      decision("fuse-activation", DecisionOutcome::Declined, "conv1 -> relu1", "BatchNormalization bn1 between conv and Relu"),
      decision("fuse-activation", DecisionOutcome::Declined, "conv2 -> relu2", "BatchNormalization bn2 between conv and Relu")};
  const auto e = pass_effects(d, s);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[2].pass, "fuse-activation");
  EXPECT_EQ(e[2].applied, 0);
  EXPECT_EQ(e[2].declined, 2);
  EXPECT_EQ(e[2].verb, "fused");  // the pass's own verb: "fused 0", not "applied 0"
  EXPECT_EQ(e[2].first_decline, "conv1 -> relu1: BatchNormalization bn1 between conv and Relu");
  EXPECT_EQ(format_pass_effects(e, true),
            "fuse-activation fused 0, declined 2 (first: conv1 -> relu1: BatchNormalization bn1 between conv and Relu); "
            "no candidate: fuse-bias, hoist-activation");
  EXPECT_EQ(format_pass_effects(e, false), "fuse-activation fused 0, declined 2; no candidate: fuse-bias, hoist-activation");
}

TEST(PassEffect, AppliedRewritesAreCountedWithTheirVerb) {
  Strategy s;
  s.passes = {"fold-batchnorm", "fuse-activation"};
  const std::vector<Decision> d = {decision("fold-batchnorm", DecisionOutcome::Applied, "c1 + bn1", "", "folded"),
                                   decision("fold-batchnorm", DecisionOutcome::Applied, "c2 + bn2", "", "folded"),
                                   decision("fold-batchnorm", DecisionOutcome::Declined, "c3 + bn3", "output also feeds x"),
                                   decision("fuse-activation", DecisionOutcome::Applied, "c1 -> r1", "", "fused")};
  EXPECT_EQ(format_pass_effects(pass_effects(d, s), false), "fold-batchnorm folded 2, declined 1; fuse-activation fused 1");
}

// fuse-layers' stacks write intermediates that the program pass keep-resident (not a strategy
// pass) keeps in SRAM: much of depth-first's DDR saving. Its count follows the strategy's
// (new-user finding: "fuse-layers linked 4" while DDR fell 41 %, with no word of keep-resident).
TEST(PassEffect, KeepResidentFollowsAStrategyWithFuseLayers) {
  Strategy s;
  s.passes = {"fuse-layers"};
  const std::vector<Decision> d = {decision("fuse-layers", DecisionOutcome::Applied, "c1 + c2", "", "linked"),
                                   decision("keep-resident", DecisionOutcome::Applied, "t1", "", "kept in SRAM"),
                                   decision("keep-resident", DecisionOutcome::Applied, "t2", "", "kept in SRAM"),
                                   decision("keep-resident", DecisionOutcome::Declined, "t3", "no free SRAM range")};
  EXPECT_EQ(format_pass_effects(pass_effects(d, s), true),
            "fuse-layers linked 1; keep-resident kept in SRAM 2, declined 1 (first: t3: no free SRAM range)");
  // Without fuse-layers the same decisions add nothing (keep-resident does not run then).
  Strategy r;
  r.passes = {"fuse-residual"};
  EXPECT_EQ(pass_effects(d, r).size(), 1u);
}

TEST(PassEffect, NoPassesAndPassesWithoutDecisions) {
  EXPECT_EQ(format_pass_effects(pass_effects({}, Strategy{}), true), "no passes");
  Strategy s;
  s.passes = {"fuse-residual"};
  const auto e = pass_effects({}, s);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].applied + e[0].declined, 0);
  EXPECT_EQ(format_pass_effects(e, true), "no candidate: fuse-residual");
}

}  // namespace
