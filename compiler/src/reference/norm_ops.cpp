// Reference kernels: normalisations (ONNX opset 9-17).
//   BatchNormalization (inference form): Y = (X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]
//       over channel dim 1 (epsilon default 1e-5); training_mode=1 is refused.
//   LayerNormalization (opset 17): over dims axis.. (default -1), mean and biased variance
//       per row, Y = (X - mean) / sqrt(var + epsilon) * Scale + B (Scale/B broadcast to the
//       normalised dims); the optional Mean / InvStdDev outputs too.
//   RMSNormalization (opset 23): over dims axis.., Y = X / sqrt(mean(X^2) + epsilon) * Scale.
//   InstanceNormalization: per (n, c) over the spatial dims, then scale[c], B[c].
// Sums are taken in double so that a long row (a 7x7x2048 plane) does not lose bits.
#include <cmath>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

const RefTensor& per_channel(const OpCall& call, std::size_t k, std::int64_t C, const char* what) {
  const RefTensor& t = call.fin(k);
  if (t.elements() != C)
    call.fail(std::string(what) + " has shape " + shape_str(t.shape) + ", expected " + std::to_string(C) + " values (one per channel)");
  return t;
}

void batch_norm(OpCall& call) {
  call.only_attrs({"epsilon", "momentum", "training_mode"});
  if (call.node.attr_int("training_mode", 0) != 0)
    call.fail("training_mode=1 (batch statistics) is not an inference op; re-export the model in eval mode");
  for (std::size_t k = 1; k < call.node.outputs.size(); ++k)
    if (call.wants(k)) call.fail("output " + std::to_string(k) + " (running statistics) exists only in training mode");
  const RefTensor& x = call.fin(0);
  if (x.shape.size() < 2) call.fail("X has shape " + shape_str(x.shape) + "; BatchNormalization needs [N, C, ...]");
  const std::int64_t N = x.shape[0], C = x.shape[1], P = span(x.shape, 2, x.shape.size());
  const RefTensor& scale = per_channel(call, 1, C, "scale");
  const RefTensor& bias = per_channel(call, 2, C, "B");
  const RefTensor& mean = per_channel(call, 3, C, "mean");
  const RefTensor& var = per_channel(call, 4, C, "var");
  const float eps = call.node.attr_float("epsilon", 1e-5f);
  RefTensor y;
  y.shape = x.shape;
  y.f.resize(x.f.size());
  for (std::int64_t c = 0; c < C; ++c) {
    // y = (x - mean) * a + B with a = scale / sqrt(var + eps): the formula above up to
    // the rounding of one product.
    const float a = scale.f[c] / std::sqrt(var.f[c] + eps);
    const float m = mean.f[c], b = bias.f[c];
    for (std::int64_t n = 0; n < N; ++n) {
      const float* __restrict src = x.f.data() + (n * C + c) * P;
      float* __restrict dst = y.f.data() + (n * C + c) * P;
      for (std::int64_t p = 0; p < P; ++p) dst[p] = (src[p] - m) * a + b;
    }
  }
  call.out[0] = std::move(y);
}

// Scale or B of a normalisation over dims axis.. of x: they broadcast to the normalised dims
// (their shape is a suffix of X's, or all ones); expanded to one value per row position.
std::vector<float> broadcast_to_row(const OpCall& call, const RefTensor& x, std::size_t axis, const RefTensor& t,
                                    const char* what) {
  const std::int64_t D = span(x.shape, axis, x.shape.size());
  std::vector<float> row(static_cast<std::size_t>(D));
  const std::vector<std::int64_t> norm_shape(x.shape.begin() + static_cast<std::ptrdiff_t>(axis), x.shape.end());
  if (t.shape.size() > norm_shape.size())
    call.fail(std::string(what) + " has shape " + shape_str(t.shape) + ", more dims than the normalised " + shape_str(norm_shape));
  const std::size_t off = norm_shape.size() - t.shape.size();
  for (std::size_t d = 0; d < t.shape.size(); ++d)
    if (t.shape[d] != 1 && t.shape[d] != norm_shape[off + d])
      call.fail(std::string(what) + " has shape " + shape_str(t.shape) + ", not broadcastable to " + shape_str(norm_shape));
  const auto ns = strides_of(norm_shape);
  for (std::int64_t e = 0; e < D; ++e) {
    std::int64_t src = 0, stride = 1;
    for (std::size_t d = t.shape.size(); d-- > 0;) {
      const std::int64_t idx = (e / ns[off + d]) % norm_shape[off + d];
      src += (t.shape[d] == 1 ? 0 : idx) * stride;
      stride *= t.shape[d];
    }
    row[static_cast<std::size_t>(e)] = t.f[static_cast<std::size_t>(src)];
  }
  return row;
}

void layer_norm(OpCall& call) {
  const RefTensor& x = call.fin(0);
  const std::size_t axis = norm_axis(call, call.node.attr_int("axis", -1), x.shape.size());
  const float eps = call.node.attr_float("epsilon", 1e-5f);
  const std::int64_t rows = span(x.shape, 0, axis), D = span(x.shape, axis, x.shape.size());
  const RefTensor& scale = call.fin(1);
  const RefTensor* bias = call.opt(2);
  const std::vector<float> g = broadcast_to_row(call, x, axis, scale, "Scale");
  const std::vector<float> b = bias ? broadcast_to_row(call, x, axis, call.fin(2), "B") : std::vector<float>(static_cast<std::size_t>(D), 0.0f);
  RefTensor y;
  y.shape = x.shape;
  y.f.resize(x.f.size());
  std::vector<std::int64_t> stat_shape = x.shape;
  for (std::size_t d = axis; d < stat_shape.size(); ++d) stat_shape[d] = 1;
  RefTensor mean_t = RefTensor::zeros(stat_shape), inv_t = RefTensor::zeros(stat_shape);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* src = x.f.data() + r * D;
    double sum = 0;
    for (std::int64_t e = 0; e < D; ++e) sum += src[e];
    const double mean = sum / double(D);
    double sq = 0;
    for (std::int64_t e = 0; e < D; ++e) sq += (src[e] - mean) * (src[e] - mean);
    const double inv = 1.0 / std::sqrt(sq / double(D) + double(eps));
    float* dst = y.f.data() + r * D;
    for (std::int64_t e = 0; e < D; ++e)
      dst[e] = static_cast<float>((src[e] - mean) * inv) * g[static_cast<std::size_t>(e)] + b[static_cast<std::size_t>(e)];
    mean_t.f[static_cast<std::size_t>(r)] = static_cast<float>(mean);
    inv_t.f[static_cast<std::size_t>(r)] = static_cast<float>(inv);
  }
  call.out[0] = std::move(y);
  if (call.wants(1)) call.out[1] = std::move(mean_t);
  if (call.wants(2)) call.out[2] = std::move(inv_t);
}

// RMSNormalization (opset 23): over dims axis.. (default -1), Y = X / sqrt(mean(X^2) + epsilon)
// * Scale (Zhang & Sennrich 2019; Llama's RMSNorm), the mean of squares in double.
void rms_norm(OpCall& call) {
  call.only_attrs({"axis", "epsilon", "stash_type"});
  const RefTensor& x = call.fin(0);
  const std::size_t axis = norm_axis(call, call.node.attr_int("axis", -1), x.shape.size());
  const double eps = call.node.attr_float("epsilon", 1e-5f);
  const std::int64_t rows = span(x.shape, 0, axis), D = span(x.shape, axis, x.shape.size());
  const std::vector<float> g = broadcast_to_row(call, x, axis, call.fin(1), "Scale");
  RefTensor y;
  y.shape = x.shape;
  y.f.resize(x.f.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* src = x.f.data() + r * D;
    double sq = 0;
    for (std::int64_t e = 0; e < D; ++e) sq += double(src[e]) * src[e];
    const double inv = 1.0 / std::sqrt(sq / double(D) + eps);
    float* dst = y.f.data() + r * D;
    for (std::int64_t e = 0; e < D; ++e) dst[e] = static_cast<float>(src[e] * inv) * g[static_cast<std::size_t>(e)];
  }
  call.out[0] = std::move(y);
}

void instance_norm(OpCall& call) {
  const RefTensor& x = call.fin(0);
  if (x.shape.size() < 3) call.fail("X has shape " + shape_str(x.shape) + "; InstanceNormalization needs [N, C, D1, ...]");
  const std::int64_t N = x.shape[0], C = x.shape[1], P = span(x.shape, 2, x.shape.size());
  const RefTensor& scale = per_channel(call, 1, C, "scale");
  const RefTensor& bias = per_channel(call, 2, C, "B");
  const double eps = call.node.attr_float("epsilon", 1e-5f);
  RefTensor y;
  y.shape = x.shape;
  y.f.resize(x.f.size());
  for (std::int64_t nc = 0; nc < N * C; ++nc) {
    const std::int64_t c = nc % C;
    const float* src = x.f.data() + nc * P;
    double sum = 0, sq = 0;
    for (std::int64_t p = 0; p < P; ++p) sum += src[p];
    const double mean = sum / double(P);
    for (std::int64_t p = 0; p < P; ++p) sq += (src[p] - mean) * (src[p] - mean);
    const double inv = 1.0 / std::sqrt(sq / double(P) + eps);
    float* dst = y.f.data() + nc * P;
    for (std::int64_t p = 0; p < P; ++p) dst[p] = static_cast<float>((src[p] - mean) * inv * scale.f[c] + bias.f[c]);
  }
  call.out[0] = std::move(y);
}

}  // namespace

void add_norm_ops(std::map<std::string, OpKernel>& t) {
  t["BatchNormalization"] = batch_norm;
  t["LayerNormalization"] = layer_norm;
  t["RMSNormalization"] = rms_norm;
  t["InstanceNormalization"] = instance_norm;
}

}  // namespace npu::compiler::reference
