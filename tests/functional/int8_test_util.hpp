// Int8 by every built-in strategy: post-training quantisation of an fp32 graph (seeded
// calibration), then the program executed with int8 data against the integer reference of
// the graph that strategy quantises (sim::check_int8_execution).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/verify/verify.hpp"

namespace npu::test {

/// EXPECTs "bit-exact" for `g` under every built-in strategy on `hw` (an int8 config),
/// calibrated on 4 samples of seed `calib_seed` and run on one sample of seed `input_seed`.
inline void expect_int8_bit_exact_under_every_strategy(const compiler::Graph& g, const HwConfig& hw,
                                                       std::uint64_t calib_seed, std::uint64_t input_seed) {
  const auto calib = compiler::generate_calibration(g, calib_seed, 4);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, input_seed, 1).at(0);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const compiler::Strategy st = compiler::builtin_strategy(s);
    const compiler::Graph qg = compiler::quantize_graph(g, st, calib).graph;
    const sim::Int8Check r = sim::check_int8_execution(compiler::compile(qg, hw, st), hw, qg, in);
    EXPECT_EQ(r.status, "bit-exact") << "strategy " << s;
  }
}

}  // namespace npu::test
