// Reference kernels: reductions and Softmax (ONNX opset 9-17).
//   ReduceMean/Sum/Max/Min/Prod/SumSquare/L2: over `axes` (attribute; ReduceSum from
//   opset 13 an input), all dims when none given (ReduceSum with noop_with_empty_axes=1:
//   identity), keepdims default 1. Sums in double. ReduceSum/Max/Min/Prod of an integer
//   tensor stay integers (int64 arithmetic, the input's type).
//   Softmax / LogSoftmax: from opset 13 along `axis` alone; before it, the input is viewed
//   as 2-D [prod(dims < axis), prod(dims >= axis)] and normalised along the second dim.
//   exp(x - max) / sum, as every framework does for range.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

enum class Reduce { Mean, Sum, Max, Min, Prod, SumSquare, L2 };

// The reduced axes of a Reduce* node over x, and where each input element accumulates.
struct ReduceShape {
  std::vector<bool> reduced;
  std::vector<std::int64_t> out_shape, kept_shape, in_strides, out_strides;
  std::int64_t out_n = 0;
  bool identity = false;  ///< noop_with_empty_axes=1 with no axes: the input unchanged

  ReduceShape(const OpCall& call, const RefTensor& x) {
    const std::size_t rank = x.shape.size();
    std::vector<std::int64_t> axes = call.node.attr_ints("axes");
    if (call.opt(1)) axes = call.ints(1);
    reduced.assign(rank, axes.empty());
    identity = axes.empty() && call.node.attr_int("noop_with_empty_axes", 0) != 0;
    for (std::int64_t a : axes) reduced[norm_axis(call, a, rank)] = true;
    const bool keep = call.node.attr_int("keepdims", 1) != 0;
    for (std::size_t d = 0; d < rank; ++d) {
      kept_shape.push_back(reduced[d] ? 1 : x.shape[d]);
      if (!reduced[d]) out_shape.push_back(x.shape[d]);
      else if (keep) out_shape.push_back(1);
    }
    out_n = span(kept_shape, 0, rank);
    in_strides = strides_of(x.shape), out_strides = strides_of(kept_shape);
  }
  /// The output element input element e accumulates into.
  std::int64_t out_of(std::int64_t e, const std::vector<std::int64_t>& shape) const {
    std::int64_t o = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) o += (e / in_strides[d]) % shape[d] * out_strides[d];
    return o;
  }
};

// ReduceSum/Max/Min/Prod of an integer tensor (shape arithmetic in exports: the product of a
// dynamic shape's dims), exact in int64 (ONNX: the input's type).
template <Reduce R>
void reduce_ints(OpCall& call, const RefTensor& x, const ReduceShape& rs) {
  if (R != Reduce::Sum && R != Reduce::Max && R != Reduce::Min && R != Reduce::Prod)
    call.fail("input 0 ('" + call.node.inputs[0] + "') is an integer tensor; the reference interpreter computes " +
              call.node.op_type + " on float tensors only (ReduceSum, ReduceMax, ReduceMin and ReduceProd take integers)");
  std::vector<std::int64_t> acc(std::size_t(rs.out_n), R == Reduce::Max   ? std::numeric_limits<std::int64_t>::min()
                                                       : R == Reduce::Min ? std::numeric_limits<std::int64_t>::max()
                                                       : R == Reduce::Prod ? 1
                                                                           : 0);
  for (std::int64_t e = 0; e < x.elements(); ++e) {
    const std::int64_t v = x.i[std::size_t(e)];
    std::int64_t& a = acc[std::size_t(rs.out_of(e, x.shape))];
    // Sum and product wrap modulo 2^64 (two's complement, as ONNX Runtime's int64 does), without
    // signed overflow.
    const auto wrap = [](std::uint64_t u) { return std::int64_t(u); };
    a = R == Reduce::Sum    ? wrap(std::uint64_t(a) + std::uint64_t(v))
        : R == Reduce::Prod ? wrap(std::uint64_t(a) * std::uint64_t(v))
        : R == Reduce::Max  ? std::max(a, v)
                            : std::min(a, v);
  }
  RefTensor y;
  y.type = x.type;
  y.shape = rs.out_shape;
  y.i = std::move(acc);
  call.out[0] = std::move(y);
}

template <Reduce R>
void reduce(OpCall& call) {
  const RefTensor* in = call.opt(0);
  if (!in) call.fail("input 0 is required but absent");
  const RefTensor& x = *in;
  const ReduceShape rs(call, x);
  if (rs.identity) {
    call.out[0] = x;
    return;
  }
  if (!x.is_float()) return reduce_ints<R>(call, x, rs);
  std::vector<double> acc(static_cast<std::size_t>(rs.out_n),
                          R == Reduce::Max   ? -std::numeric_limits<double>::infinity()
                          : R == Reduce::Min ? std::numeric_limits<double>::infinity()
                          : R == Reduce::Prod ? 1.0
                                              : 0.0);
  const std::int64_t n = x.elements();
  for (std::int64_t e = 0; e < n; ++e) {
    const double v = x.f[static_cast<std::size_t>(e)];
    double& a = acc[static_cast<std::size_t>(rs.out_of(e, x.shape))];
    switch (R) {
      case Reduce::Mean:
      case Reduce::Sum: a += v; break;
      case Reduce::Max: a = std::isnan(v) || std::isnan(a) ? NAN : std::max(a, v); break;
      case Reduce::Min: a = std::isnan(v) || std::isnan(a) ? NAN : std::min(a, v); break;
      case Reduce::Prod: a *= v; break;
      case Reduce::SumSquare:
      case Reduce::L2: a += v * v; break;
    }
  }
  const double count = double(n) / double(std::max<std::int64_t>(rs.out_n, 1));
  RefTensor y;
  y.shape = rs.out_shape;
  for (double a : acc)
    y.f.push_back(static_cast<float>(R == Reduce::Mean ? a / count : R == Reduce::L2 ? std::sqrt(a) : a));
  call.out[0] = std::move(y);
}

template <bool Log>
void softmax(OpCall& call) {
  const RefTensor& x = call.fin(0);
  const std::size_t rank = x.shape.size();
  const std::size_t axis = norm_axis(call, call.node.attr_int("axis", call.graph.opset >= 13 ? -1 : 1), rank);
  // opset >= 13: along `axis` only (inner = dims after it); before: along all dims >= axis.
  const std::int64_t len = call.graph.opset >= 13 ? x.shape[axis] : span(x.shape, axis, rank);
  const std::int64_t inner = call.graph.opset >= 13 ? span(x.shape, axis + 1, rank) : 1;
  const std::int64_t outer = span(x.shape, 0, axis);
  RefTensor y;
  y.shape = x.shape;
  y.f.resize(x.f.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t base = o * len * inner + i;
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t k = 0; k < len; ++k) m = std::max(m, x.f[static_cast<std::size_t>(base + k * inner)]);
      double sum = 0;
      for (std::int64_t k = 0; k < len; ++k) sum += std::exp(double(x.f[static_cast<std::size_t>(base + k * inner)]) - m);
      for (std::int64_t k = 0; k < len; ++k) {
        const double z = double(x.f[static_cast<std::size_t>(base + k * inner)]) - m;
        y.f[static_cast<std::size_t>(base + k * inner)] = static_cast<float>(Log ? z - std::log(sum) : std::exp(z) / sum);
      }
    }
  call.out[0] = std::move(y);
}

}  // namespace

void add_reduce_ops(std::map<std::string, OpKernel>& t) {
  t["ReduceMean"] = reduce<Reduce::Mean>;
  t["ReduceSum"] = reduce<Reduce::Sum>;
  t["ReduceMax"] = reduce<Reduce::Max>;
  t["ReduceMin"] = reduce<Reduce::Min>;
  t["ReduceProd"] = reduce<Reduce::Prod>;
  t["ReduceSumSquare"] = reduce<Reduce::SumSquare>;
  t["ReduceL2"] = reduce<Reduce::L2>;
  t["Softmax"] = softmax<false>;
  t["LogSoftmax"] = softmax<true>;
}

}  // namespace npu::compiler::reference
