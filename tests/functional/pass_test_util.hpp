// Helpers shared by the fusion-pass data tests (swiglu, gemm epilogue, norm prologue, rope,
// attention): the DMA bytes a program moves, one pass's decisions as text, and the worst
// relative error of a compiled graph's outputs against the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "functional_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace npu::test {

/// Bytes the program's `op` (Load or Store) instructions move, all or those of `tensor`.
inline std::uint64_t dma_bytes(const isa::Program& p, isa::Opcode op, const std::string& tensor = "") {
  std::uint64_t n = 0;
  for (const isa::Instruction& in : p.instructions)
    if (in.op == op && (tensor.empty() || in.tensor == tensor)) n += std::get<isa::DmaDesc>(in.params).bytes();
  return n;
}

/// Pass `pass`'s decisions of outcome `o`, one "label: reason" line each ("" when none).
inline std::string pass_decisions(const compiler::CompileResult& c, const std::string& pass,
                                  compiler::DecisionOutcome o) {
  std::string s;
  for (const auto& d : c.decisions)
    if (d.pass == pass && d.outcome == o) s += d.label + ": " + d.reason + "\n";
  return s;
}

/// Compiles `g` under `s` for `hw`, runs it with data on inputs seeded by `seed`
/// (generate_calibration) and returns the worst relative error (max |sim - ref| / max |ref|)
/// over its outputs against the reference interpreter; 1 (and a test failure) when it fails.
inline double reference_error(const compiler::Graph& g, const compiler::Strategy& s, const HwConfig& hw,
                              std::uint64_t seed) {
  const compiler::RefTensorMap in = compiler::generate_calibration(g, seed, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  const compiler::CompileResult c = compiler::compile(g, hw, s);
  std::map<std::string, std::vector<float>> inputs;
  for (const std::string& name : g.inputs) inputs[name] = in.at(name).f;
  const auto r = run_forked(c, hw, inputs, true);
  if (!r.ok) ADD_FAILURE() << r.error;
  double worst = 0;
  for (const std::string& out : g.outputs) {
    if (!r.ok || !r.outputs.count(out)) return 1.0;
    worst = std::max(worst, rel_err(r.outputs.at(out), to_double(ref.at(out).f)));
  }
  return worst;
}

}  // namespace npu::test
