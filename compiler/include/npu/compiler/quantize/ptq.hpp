// Post-training quantisation (docs/functional.md, "Quantisation"): an fp32 graph annotated
// with the int8 parameters an int8 execution uses, in exactly the form the QDQ importer
// (fold_qdq.hpp) leaves a pre-quantised model in, so the two kinds of model are one contract:
//  - weights of Conv / Gemm / MatMul (constant input 1): symmetric per output channel, int8,
//    s_w[c] = max|w_c| / 127, q = round_half_even(w / s_w[c]) in [-127, 127]; the tensor keeps
//    fp32 values ON the grid (q x s_w[c], what fold_qdq's DequantizeLinear of a constant
//    gives) and Tensor::quant = {scale s_w, zero_point 0, axis = output-channel axis (Conv 0,
//    Gemm transB=1 0, Gemm transB=0 and MatMul 1: fold_qdq's QLinearMatMul axis), Int8};
//  - bias of Conv / Gemm (1-D, one per output channel): int32 with scale s_in x s_w[c] and
//    zero point 0 (ONNX QLinearConv), kept as fp32 q x s_in x s_w[c], quant type Int32;
//  - activations (graph inputs and every float tensor a node computes that the strategy
//    materialises): per tensor, asymmetric int8: from the calibrated range [lo, hi] (0
//    included), s = (hi - lo) / 255 (1 when hi = lo = 0), zp = round_half_even(-128 - lo / s)
//    clamped to [-128, 127] (ONNX Runtime's quantiser, compute_scale_zp).
// The reference interpreter with ReferenceOptions::apply_quant then computes the fake-quantised
// model; the int8 execution and the integer reference read the same parameters.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace npu::compiler {

/// Activation parameters for a calibrated range (formula above). Throws nothing.
QuantParams activation_params(const TensorRange& range);

/// Per-channel symmetric weight parameters of `w` along `axis` (formula above); a channel of
/// zeros gets scale 1. `w` must be a constant with float data.
QuantParams weight_params(const Tensor& w, std::int64_t axis);

/// Output-channel axis of the weight of node `n` (Conv 0; Gemm 0 with transB=1, else 1;
/// MatMul with a 2-D constant B: 1), or -1 when the node has no constant 2-D/4-D weight.
std::int64_t weight_axis(const Graph& g, const Node& n);

/// Rounds `t`'s float data onto the grid of `q` (per channel along q.axis), saturating to the
/// range of q.type (Int8: [-127, 127] for symmetric weights; Int32 for biases), and sets
/// t.quant = q.
void quantize_constant(Tensor& t, const QuantParams& q);

/// Where BatchNormalization folding happens relative to quantisation (docs/functional.md).
enum class FoldOrder {
  /// The strategy's BN folding runs on the fp32 graph, calibration and weight quantisation on
  /// the folded graph (what the fused strategies do).
  FoldThenQuantize,
  /// The naive flow: calibrate and quantise the unfolded graph, then fold BN into the already
  /// quantised weights and round the folded weights back onto the per-channel grid chosen
  /// before folding (old scales kept; a gamma/sqrt(var+eps) > 1 saturates, < 1 loses levels);
  /// the folded bias is requantised with s_in x s_w_old[c].
  QuantizeThenFold,
};

struct PtqOptions {
  CalibrationOptions calibration;
  FoldOrder order = FoldOrder::FoldThenQuantize;
};

struct PtqResult {
  Graph graph;                 ///< fp32 graph (BN folded when the strategy folds) + Tensor::quant
  int weights = 0;             ///< weight tensors quantised per channel
  int biases = 0;              ///< bias tensors quantised as int32
  int activations = 0;         ///< activation tensors given per-tensor parameters
  int folded_bn = 0;           ///< BatchNormalization nodes folded (either order)
  std::map<std::string, TensorRange> ranges;  ///< calibrated ranges, by tensor name
};

/// Quantises `graph` for `strategy`: the graph passes of the strategy that change values
/// (fold-batchnorm) run before or after quantisation as `options.order` says; the others
/// (activation, residual, layer fusion) decide which tensors are materialised, and only those
/// get activation parameters (a Conv output consumed inside a fused epilogue stays at the
/// accumulator's precision, as on the hardware). `samples` calibrate.
/// Throws ConfigError: a graph that already carries quantisation parameters (a QDQ model:
/// it is quantised already), a calibration error (calibrate()), an unknown pass.
PtqResult quantize_graph(const Graph& graph, const Strategy& strategy, const std::vector<CalibSample>& samples,
                         const PtqOptions& options = {});

/// Names of the tensors the strategy materialises (graph inputs and node outputs of the graph
/// after the strategy's passes, fuse-residual left out: int8 keeps the residual Add separate;
/// and the input and output of every activation that runs by table, which int8 keeps separate),
/// for quantize_graph.
std::set<std::string> materialised_tensors(const Graph& graph, const Strategy& strategy);

}  // namespace npu::compiler
