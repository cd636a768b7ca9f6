// How far a computed output is from its fp32 reference: the figures `npu verify` reports
// (docs/functional.md, "What verify reports").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace npu::compiler {

/// Signal-to-quantisation-noise ratio in dB of `test` against `ref` (same length):
///   SQNR = 10 log10( sum ref[i]^2 / sum (ref[i] - test[i])^2 ),
/// sums in double. +infinity when the two are identical, -infinity when ref is all zero and
/// test is not, NaN when either holds a NaN. Throws std::invalid_argument for different
/// lengths.
double sqnr_db(const std::vector<float>& ref, const std::vector<float>& test);

/// Index of the largest value (the first one on ties); 0 for an empty vector.
std::size_t argmax(const std::vector<float>& v);

/// Whether an output of `shape` is a classifier's scores: every dimension but the last is 1
/// and the last has at least 10 classes ([1, 1000], [1, 1, 10]...).
bool is_classifier_output(const std::vector<std::int64_t>& shape);

/// Top-1 agreement (argmax equal) of `test` with `ref` when `shape` is a classifier output
/// (is_classifier_output), empty otherwise.
std::optional<bool> top1_agrees(const std::vector<std::int64_t>& shape, const std::vector<float>& ref,
                                const std::vector<float>& test);

}  // namespace npu::compiler
