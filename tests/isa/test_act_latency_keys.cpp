// The act_unit.latency_cycles keys of the config schema are written out in npu_hw_config,
// which sits below the ISA and cannot call isa::to_string. This checks they are exactly the
// vector-unit op names of the instruction set, each once, in the order the loader used to
// derive them from the ISA's enumerations (hw_config_to_yaml prints in this order).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu {
namespace {

std::vector<std::string> latency_keys_from_the_isa() {
  std::vector<std::string> keys = {"default"};
  auto add = [&keys](const char* name) {
    if (std::find(keys.begin(), keys.end(), name) == keys.end()) keys.emplace_back(name);
  };
  using isa::ActOp;
  using isa::EltwiseOp;
  using isa::PoolOp;
  for (auto op : {ActOp::Relu, ActOp::Clip, ActOp::LeakyRelu, ActOp::Sigmoid, ActOp::Silu, ActOp::HardSigmoid,
                  ActOp::HardSwish, ActOp::ScaleShift})
    add(isa::to_string(op));
  for (auto op : {EltwiseOp::Add, EltwiseOp::Mul}) add(isa::to_string(op));
  for (auto op : {PoolOp::Max, PoolOp::Avg, PoolOp::GlobalAvg}) add(isa::to_string(op));
  for (auto op : {ActOp::Erf, ActOp::Exp, ActOp::Sqrt, ActOp::Reciprocal, ActOp::Tanh, ActOp::Gelu, ActOp::Abs,
                  ActOp::Neg, ActOp::Pow, ActOp::Identity, ActOp::Softmax, ActOp::LayerNorm})
    add(isa::to_string(op));
  for (auto op : {EltwiseOp::Sub, EltwiseOp::Div, EltwiseOp::Max, EltwiseOp::Min, EltwiseOp::Pow, EltwiseOp::RSub,
                  EltwiseOp::RDiv})
    add(isa::to_string(op));
  for (auto op : {ActOp::GeluTanh, ActOp::RmsNorm, ActOp::SoftmaxOnline, ActOp::Rope}) add(isa::to_string(op));
  add(isa::to_string(PoolOp::AvgPad));
  for (auto op : {EltwiseOp::Lerp, EltwiseOp::LerpRound}) add(isa::to_string(op));
  for (auto op : {ActOp::Log, ActOp::Floor, ActOp::Ceil, ActOp::Not, ActOp::Trunc, ActOp::ToBool})
    add(isa::to_string(op));
  for (auto op : {EltwiseOp::Equal, EltwiseOp::Less, EltwiseOp::Greater, EltwiseOp::LessEqual, EltwiseOp::GreaterEqual,
                  EltwiseOp::And, EltwiseOp::Or, EltwiseOp::Xor, EltwiseOp::Mod, EltwiseOp::FMod})
    add(isa::to_string(op));
  return keys;
}

TEST(HwConfigSchema, ActLatencyKeysAreTheIsaOpNames) {
  const std::vector<HwConfigSection>& schema = hw_config_schema();
  auto it = std::find_if(schema.begin(), schema.end(),
                         [](const HwConfigSection& s) { return s.path == "act_unit.latency_cycles"; });
  ASSERT_NE(it, schema.end());
  EXPECT_TRUE(it->required.empty());
  EXPECT_EQ(it->optional, latency_keys_from_the_isa());
}

TEST(HwConfigSchema, EveryVectorOpHasALatencyKey) {
  // A new ActOp, EltwiseOp or PoolOp must get its key in npu_hw_config (hw_config_schema.cpp).
  const std::vector<std::string>& keys = std::find_if(hw_config_schema().begin(), hw_config_schema().end(),
                                                      [](const HwConfigSection& s) {
                                                        return s.path == "act_unit.latency_cycles";
                                                      })->optional;
  auto has = [&keys](const char* name) { return std::find(keys.begin(), keys.end(), name) != keys.end(); };
  // Each enumeration is walked up to its first value without a name (to_string gives "?"), so
  // an op appended later is covered too.
  const std::string none = "?";
  for (int a = int(isa::ActOp::Relu); isa::to_string(isa::ActOp(a)) != none; ++a)
    EXPECT_TRUE(has(isa::to_string(isa::ActOp(a)))) << isa::to_string(isa::ActOp(a));
  for (int e = int(isa::EltwiseOp::Add); isa::to_string(isa::EltwiseOp(e)) != none; ++e)
    EXPECT_TRUE(has(isa::to_string(isa::EltwiseOp(e)))) << isa::to_string(isa::EltwiseOp(e));
  for (int p = int(isa::PoolOp::Max); isa::to_string(isa::PoolOp(p)) != none; ++p)
    EXPECT_TRUE(has(isa::to_string(isa::PoolOp(p)))) << isa::to_string(isa::PoolOp(p));
}

}  // namespace
}  // namespace npu
