// Compile-time evaluation of constant subgraphs (constant_folding.hpp).
// Semantics: ONNX operator specification, opsets 9-17 (onnx/docs/Operators.md).
#include "npu/compiler/transforms/canonicalize/constant_folding.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

using Shape = std::vector<std::int64_t>;

/// A constant value during folding: shape, element type and the data as doubles (exact for
/// every int32 and for int64 shape arithmetic up to 2^53).
struct Val {
  Shape shape;
  ElemType type = ElemType::Float32;
  std::vector<double> v;
  bool is_float() const { return type == ElemType::Float32 || type == ElemType::Float16; }
};

// A double back to int64, saturating (INT64_MAX/MIN pass through doubles as +-9.22e18).
std::int64_t to_int(double d) {
  if (d >= 9.2233720368547758e18) return INT64_MAX;
  if (d <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<std::int64_t>(d);
}

std::int64_t count(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

class Folder {
 public:
  Folder(Graph& g, std::size_t index, const std::string& source)
      : g_(g), n_(g.nodes[index]), index_(index), source_(source) {}

  bool run() {
    const std::string& op = n_.op_type;
    static const std::set<std::string> kShapeOnly = {"Shape", "Size"};
    if (kShapeOnly.count(op)) {
      if (!has(0) || !g_.tensor(n_.inputs[0]).shape_known()) return false;
    } else {
      bool any = false;
      for (const auto& in : n_.inputs) {
        if (in.empty()) continue;
        if (!g_.has_tensor(in) || !g_.tensor(in).is_constant) return false;
        any = true;
      }
      if (!any && op != "ConstantOfShape" && op != "Range") return false;
    }
    auto it = table().find(op);
    if (it == table().end()) return false;
    std::vector<Val> outs = (this->*(it->second))();
    if (outs.empty()) return false;
    for (const auto& o : outs)
      if (count(o.shape) > kMaxFoldedElements) return false;
    for (std::size_t i = 0; i < outs.size() && i < n_.outputs.size(); ++i) {
      if (n_.outputs[i].empty()) continue;
      Tensor& t = g_.tensors[n_.outputs[i]];
      t.name = n_.outputs[i];
      t.shape = outs[i].shape;
      t.type = outs[i].type;
      t.is_constant = true;
      t.float_data.clear();
      t.int_data.clear();
      if (outs[i].is_float()) {
        t.float_data.reserve(outs[i].v.size());
        for (double d : outs[i].v) t.float_data.push_back(static_cast<float>(d));
      } else {
        t.int_data.reserve(outs[i].v.size());
        for (double d : outs[i].v) t.int_data.push_back(to_int(d));
      }
    }
    return true;
  }

 private:
  using Fn = std::vector<Val> (Folder::*)();

  [[noreturn]] void fail(const std::string& why) const {
    throw ConfigError(source_ + ": error: node #" + std::to_string(index_) + " '" + n_.name + "' (" + n_.op_type +
                      "): " + why + " (while folding constants); the model is malformed: re-export it");
  }

  bool has(std::size_t i) const { return i < n_.inputs.size() && !n_.inputs[i].empty(); }

  Val in(std::size_t i) const {
    if (!has(i)) fail("missing input " + std::to_string(i));
    const Tensor& t = g_.tensor(n_.inputs[i]);
    Val v;
    v.shape = t.shape;
    v.type = t.type;
    if (t.type == ElemType::Float32 || t.type == ElemType::Float16) v.v.assign(t.float_data.begin(), t.float_data.end());
    else v.v.assign(t.int_data.begin(), t.int_data.end());
    if (std::int64_t(v.v.size()) != count(v.shape))
      fail("constant '" + t.name + "' holds " + std::to_string(v.v.size()) + " values for shape " +
           shape_string(v.shape));
    return v;
  }

  std::vector<std::int64_t> ints(std::size_t i) const {
    // Straight from the tensor: INT64_MAX (Slice's "to the end") must survive exactly.
    if (!has(i)) fail("missing input " + std::to_string(i));
    const Tensor& t = g_.tensor(n_.inputs[i]);
    if (t.type != ElemType::Float32 && t.type != ElemType::Float16) return t.int_data;
    std::vector<std::int64_t> r;
    for (float d : t.float_data) r.push_back(to_int(d));
    return r;
  }

  std::int64_t norm_axis(std::int64_t a, std::size_t rank) const {
    const auto r = std::int64_t(rank);
    if (a < -r || a >= r) fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    return a < 0 ? a + r : a;
  }

  // Axes from the attribute (older opsets) or input `k` (newer).
  std::vector<std::int64_t> axes_of(std::size_t k, bool& given) const {
    given = true;
    if (n_.has_attr("axes")) return n_.attr_ints("axes");
    if (has(k)) return ints(k);
    given = false;
    return {};
  }

  static Val make(Shape s, ElemType t) {
    Val v;
    v.shape = std::move(s);
    v.type = t;
    v.v.assign(std::size_t(count(v.shape)), 0.0);
    return v;
  }

  // Strides of a row-major shape.
  static Shape strides(const Shape& s) {
    Shape st(s.size(), 1);
    for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
  }

  // Index into `src` (shape `ss`, broadcast to `out`) of flat output index `flat`.
  static std::int64_t bcast_index(std::int64_t flat, const Shape& out, const Shape& ss) {
    std::int64_t idx = 0, mul = 1;
    const std::size_t off = out.size() - ss.size();
    for (std::size_t d = out.size(); d-- > 0;) {
      const std::int64_t coord = flat % out[d];
      flat /= out[d];
      if (d >= off) {
        const std::int64_t sd = ss[d - off];
        idx += (sd == 1 ? 0 : coord) * mul;
        mul *= sd;
      }
    }
    return idx;
  }

  Shape bshape(const std::vector<Val>& vs) const {
    Shape out = vs[0].shape;
    for (std::size_t i = 1; i < vs.size(); ++i) {
      auto b = broadcast_shapes(out, vs[i].shape);
      if (!b) fail("shapes " + shape_string(out) + " and " + shape_string(vs[i].shape) + " do not broadcast");
      out = *b;
    }
    return out;
  }

  std::vector<Val> binary(const std::function<double(double, double)>& f, bool to_bool = false) {
    std::vector<Val> vs = {in(0), in(1)};
    const Shape out = bshape(vs);
    const bool flt = vs[0].is_float();
    Val r = make(out, to_bool ? ElemType::Bool : vs[0].type);
    for (std::int64_t i = 0; i < count(out); ++i) {
      double x = f(vs[0].v[std::size_t(bcast_index(i, out, vs[0].shape))], vs[1].v[std::size_t(bcast_index(i, out, vs[1].shape))]);
      if (!flt && !to_bool) x = std::trunc(x);
      r.v[std::size_t(i)] = x;
    }
    return {r};
  }

  std::vector<Val> unary(const std::function<double(double)>& f) {
    Val x = in(0);
    for (double& d : x.v) d = f(d);
    return {x};
  }

  // ---- ops ----
  std::vector<Val> identity() {
    std::vector<Val> r = {in(0)};
    if (n_.outputs.size() > 1) {  // Dropout mask: all kept in inference
      Val m = make(r[0].shape, ElemType::Bool);
      std::fill(m.v.begin(), m.v.end(), 1.0);
      r.push_back(m);
    }
    return r;
  }
  std::vector<Val> shape() {
    const Shape& s = g_.tensor(n_.inputs[0]).shape;
    const auto r = std::int64_t(s.size());
    std::int64_t start = n_.attr_int("start", 0), end = n_.attr_int("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<std::int64_t>(start, 0, r);
    end = std::clamp<std::int64_t>(end, 0, r);
    Val v = make({std::max<std::int64_t>(end - start, 0)}, ElemType::Int64);
    for (std::int64_t i = start; i < end; ++i) v.v[std::size_t(i - start)] = double(s[std::size_t(i)]);
    return {v};
  }
  std::vector<Val> size() {
    Val v = make({}, ElemType::Int64);
    v.v[0] = double(g_.tensor(n_.inputs[0]).elements());
    return {v};
  }
  std::vector<Val> gather() {
    Val d = in(0), ix = in(1);
    if (d.shape.empty()) fail("Gather of a scalar");
    const std::int64_t axis = norm_axis(n_.attr_int("axis", 0), d.shape.size());
    Shape out(d.shape.begin(), d.shape.begin() + axis);
    out.insert(out.end(), ix.shape.begin(), ix.shape.end());
    out.insert(out.end(), d.shape.begin() + axis + 1, d.shape.end());
    const std::int64_t outer = count(Shape(d.shape.begin(), d.shape.begin() + axis));
    const std::int64_t inner = count(Shape(d.shape.begin() + axis + 1, d.shape.end()));
    const std::int64_t dim = d.shape[std::size_t(axis)];
    Val r = make(out, d.type);
    std::size_t k = 0;
    for (std::int64_t o = 0; o < outer; ++o)
      for (double id : ix.v) {
        auto j = to_int(id);
        if (j < 0) j += dim;
        if (j < 0 || j >= dim) fail("Gather index " + std::to_string(std::int64_t(id)) + " out of range [0, " + std::to_string(dim) + ")");
        for (std::int64_t q = 0; q < inner; ++q) r.v[k++] = d.v[std::size_t((o * dim + j) * inner + q)];
      }
    return {r};
  }
  std::vector<Val> unsqueeze() {
    Val x = in(0);
    bool given;
    auto axes = axes_of(1, given);
    const std::size_t rank = x.shape.size() + axes.size();
    std::set<std::int64_t> ax;
    for (auto a : axes) ax.insert(norm_axis(a, rank));
    Shape out;
    std::size_t k = 0;
    for (std::size_t i = 0; i < rank; ++i) out.push_back(ax.count(std::int64_t(i)) ? 1 : x.shape.at(k++));
    x.shape = out;
    return {x};
  }
  std::vector<Val> squeeze() {
    Val x = in(0);
    bool given;
    auto axes = axes_of(1, given);
    std::set<std::int64_t> ax;
    for (auto a : axes) ax.insert(norm_axis(a, x.shape.size()));
    Shape out;
    for (std::size_t i = 0; i < x.shape.size(); ++i) {
      const bool drop = given ? ax.count(std::int64_t(i)) != 0 : x.shape[i] == 1;
      if (drop && x.shape[i] != 1) fail("Squeeze of axis " + std::to_string(i) + " with size " + std::to_string(x.shape[i]));
      if (!drop) out.push_back(x.shape[i]);
    }
    x.shape = out;
    return {x};
  }
  std::vector<Val> concat() {
    std::vector<Val> vs;
    for (std::size_t i = 0; i < n_.inputs.size(); ++i)
      if (has(i)) vs.push_back(in(i));
    const std::size_t rank = vs[0].shape.size();
    const std::int64_t axis = norm_axis(n_.attr_int("axis", 0), rank);
    Shape out = vs[0].shape;
    out[std::size_t(axis)] = 0;
    for (const auto& v : vs) {
      if (v.shape.size() != rank) fail("Concat inputs of different ranks");
      out[std::size_t(axis)] += v.shape[std::size_t(axis)];
    }
    const std::int64_t outer = count(Shape(out.begin(), out.begin() + axis));
    Val r = make(out, vs[0].type);
    std::size_t k = 0;
    for (std::int64_t o = 0; o < outer; ++o)
      for (const auto& v : vs) {
        const std::int64_t chunk = count(Shape(v.shape.begin() + axis, v.shape.end()));
        for (std::int64_t q = 0; q < chunk; ++q) r.v[k++] = v.v[std::size_t(o * chunk + q)];
      }
    return {r};
  }
  std::vector<Val> slice() {
    Val x = in(0);
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (g_.opset < 10) {
      starts = n_.attr_ints("starts");
      ends = n_.attr_ints("ends");
      axes = n_.attr_ints("axes");
    } else {
      starts = ints(1);
      ends = ints(2);
      if (has(3)) axes = ints(3);
      if (has(4)) steps = ints(4);
    }
    if (axes.empty())
      for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(std::int64_t(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    const std::size_t r = x.shape.size();
    Shape st(r, 0), sp(r, 1), out = x.shape;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const auto a = std::size_t(norm_axis(axes[k], r));
      const std::int64_t dim = x.shape[a], step = steps.at(k);
      if (step == 0) fail("Slice step 0");
      std::int64_t s = starts.at(k), e = ends.at(k);
      if (s < 0) s += dim;
      if (e < 0) e += dim;
      if (step > 0) {
        s = std::clamp<std::int64_t>(s, 0, dim);
        e = std::clamp<std::int64_t>(e, 0, dim);
        out[a] = e > s ? (e - s + step - 1) / step : 0;
      } else {
        s = std::clamp<std::int64_t>(s, 0, dim - 1);
        e = std::clamp<std::int64_t>(e, -1, dim - 1);
        out[a] = s > e ? (s - e - step - 1) / -step : 0;
      }
      st[a] = s;
      sp[a] = step;
    }
    Val res = make(out, x.type);
    const Shape xs = strides(x.shape);
    for (std::int64_t i = 0; i < count(out); ++i) {
      std::int64_t f = i, src = 0;
      for (std::size_t d = r; d-- > 0;) {
        const std::int64_t c = f % out[d];
        f /= out[d];
        src += (st[d] + c * sp[d]) * xs[d];
      }
      res.v[std::size_t(i)] = x.v[std::size_t(src)];
    }
    return {res};
  }
  std::vector<Val> reshape() {
    Val x = in(0);
    auto target = ints(1);
    const bool allowzero = n_.attr_int("allowzero", 0) != 0;
    std::int64_t known = 1, infer = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && !allowzero) target[i] = x.shape.at(i);
      if (target[i] == -1) {
        if (infer >= 0) fail("Reshape with two -1 dimensions");
        infer = std::int64_t(i);
      } else {
        known *= target[i];
      }
    }
    if (infer >= 0) target[std::size_t(infer)] = known ? count(x.shape) / known : 0;
    if (count(target) != count(x.shape))
      fail("Reshape of " + shape_string(x.shape) + " to " + shape_string(target));
    x.shape = target;
    return {x};
  }
  std::vector<Val> flatten() {
    Val x = in(0);
    std::int64_t axis = n_.attr_int("axis", 1);
    if (axis < 0) axis += std::int64_t(x.shape.size());
    const std::int64_t a = count(Shape(x.shape.begin(), x.shape.begin() + axis));
    x.shape = {a, a ? count(x.shape) / a : 0};
    return {x};
  }
  std::vector<Val> transpose() {
    Val x = in(0);
    const std::size_t r = x.shape.size();
    auto perm = n_.attr_ints("perm");
    if (perm.empty())
      for (std::size_t i = 0; i < r; ++i) perm.push_back(std::int64_t(r - 1 - i));
    if (perm.size() != r) fail("Transpose perm of the wrong length");
    Shape out(r);
    for (std::size_t i = 0; i < r; ++i) out[i] = x.shape.at(std::size_t(perm[i]));
    const Shape xs = strides(x.shape);
    Val res = make(out, x.type);
    for (std::int64_t i = 0; i < count(out); ++i) {
      std::int64_t f = i, src = 0;
      for (std::size_t d = r; d-- > 0;) {
        src += (f % out[d]) * xs[std::size_t(perm[d])];
        f /= out[d];
      }
      res.v[std::size_t(i)] = x.v[std::size_t(src)];
    }
    return {res};
  }
  std::vector<Val> expand() {
    Val x = in(0);
    Val s;
    s.shape = ints(1);
    auto out = broadcast_shapes(x.shape, s.shape);
    if (!out) fail("Expand of " + shape_string(x.shape) + " to " + shape_string(s.shape));
    Val r = make(*out, x.type);
    for (std::int64_t i = 0; i < count(*out); ++i) r.v[std::size_t(i)] = x.v[std::size_t(bcast_index(i, *out, x.shape))];
    return {r};
  }
  std::vector<Val> tile() {
    Val x = in(0);
    auto rep = ints(1);
    if (rep.size() != x.shape.size()) fail("Tile repeats of the wrong length");
    Shape out(x.shape.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = x.shape[i] * rep[i];
    const Shape xs = strides(x.shape);
    Val r = make(out, x.type);
    for (std::int64_t i = 0; i < count(out); ++i) {
      std::int64_t f = i, src = 0;
      for (std::size_t d = out.size(); d-- > 0;) {
        src += ((f % out[d]) % x.shape[d]) * xs[d];
        f /= out[d];
      }
      r.v[std::size_t(i)] = x.v[std::size_t(src)];
    }
    return {r};
  }
  std::vector<Val> constant_of_shape() {
    Shape s = has(0) ? ints(0) : Shape{};
    ElemType t = ElemType::Float32;
    double value = 0;
    if (n_.has_attr("value")) {
      const AttrValue& a = n_.attrs.at("value");
      if (auto* f = std::get_if<std::vector<float>>(&a); f && !f->empty()) value = (*f)[0];
      else if (auto* iv = std::get_if<std::vector<std::int64_t>>(&a); iv && !iv->empty()) {
        value = double((*iv)[0]);
        t = ElemType::Int64;
      }
    }
    if (n_.has_attr("value_type")) t = ElemType(n_.attr_int("value_type", 0));
    Val r = make(s, t);
    std::fill(r.v.begin(), r.v.end(), value);
    return {r};
  }
  std::vector<Val> range() {
    const Val s = in(0), l = in(1), d = in(2);
    const double start = s.v.at(0), limit = l.v.at(0), delta = d.v.at(0);
    if (delta == 0) fail("Range with delta 0");
    const auto n = std::int64_t(std::max(std::ceil((limit - start) / delta), 0.0));
    Val r = make({n}, s.type);
    for (std::int64_t i = 0; i < n; ++i) r.v[std::size_t(i)] = start + double(i) * delta;
    return {r};
  }
  std::vector<Val> cast() {
    Val x = in(0);
    const std::int64_t to = n_.attr_int("to", 1);
    // ONNX TensorProto.DataType: 1 float, 10 float16, 11 double, 6 int32, 7 int64, 3 int8,
    // 2 uint8, 9 bool.
    switch (to) {
      case 1: case 10: case 11: x.type = ElemType::Float32; break;
      case 6: x.type = ElemType::Int32; break;
      case 7: x.type = ElemType::Int64; break;
      case 3: x.type = ElemType::Int8; break;
      case 2: x.type = ElemType::Uint8; break;
      case 9: x.type = ElemType::Bool; break;
      default: return {};
    }
    if (x.type == ElemType::Bool) for (double& d : x.v) d = d != 0 ? 1 : 0;
    else if (!x.is_float()) for (double& d : x.v) d = std::trunc(d);
    return {x};
  }
  std::vector<Val> where() {
    std::vector<Val> vs = {in(0), in(1), in(2)};
    const Shape out = bshape(vs);
    Val r = make(out, vs[1].type);
    for (std::int64_t i = 0; i < count(out); ++i)
      r.v[std::size_t(i)] = vs[0].v[std::size_t(bcast_index(i, out, vs[0].shape))] != 0
                                ? vs[1].v[std::size_t(bcast_index(i, out, vs[1].shape))]
                                : vs[2].v[std::size_t(bcast_index(i, out, vs[2].shape))];
    return {r};
  }
  std::vector<Val> reduce(const std::string& kind) {
    Val x = in(0);
    bool given;
    auto axes = axes_of(1, given);
    const bool keep = n_.attr_int("keepdims", 1) != 0;
    std::set<std::size_t> ax;
    if (!given || axes.empty()) {
      if (given && n_.attr_int("noop_with_empty_axes", 0)) return {x};
      for (std::size_t i = 0; i < x.shape.size(); ++i) ax.insert(i);
    }
    for (auto a : axes) ax.insert(std::size_t(norm_axis(a, x.shape.size())));
    Shape kept_shape, out;
    for (std::size_t i = 0; i < x.shape.size(); ++i) {
      kept_shape.push_back(ax.count(i) ? 1 : x.shape[i]);
      if (!ax.count(i)) out.push_back(x.shape[i]);
      else if (keep) out.push_back(1);
    }
    Val r = make(kept_shape, x.type);
    const double init = kind == "prod" ? 1 : kind == "max" ? -INFINITY : kind == "min" ? INFINITY : 0;
    std::fill(r.v.begin(), r.v.end(), init);
    for (std::int64_t i = 0; i < count(x.shape); ++i) {
      double& acc = r.v[std::size_t(bcast_index(i, x.shape, kept_shape))];
      const double v = x.v[std::size_t(i)];
      if (kind == "prod") acc *= v;
      else if (kind == "max") acc = std::max(acc, v);
      else if (kind == "min") acc = std::min(acc, v);
      else acc += v;
    }
    if (kind == "mean") {
      const double n = double(count(x.shape)) / double(std::max<std::int64_t>(count(kept_shape), 1));
      for (double& d : r.v) d /= n;
    }
    r.shape = out;
    return {r};
  }

  // ScatterND (reduction none): a copy of data with the slices at `indices` replaced by
  // `updates`; indices [..., k] address the first k axes (ONNX ScatterND).
  std::vector<Val> scatter_nd() {
    if (n_.attr_string("reduction", "none") != "none") return {};
    Val data = in(0), upd = in(2);
    const Tensor& it = g_.tensor(n_.inputs[1]);
    const std::vector<std::int64_t>& idx = it.int_data;
    if (it.shape.empty()) fail("ScatterND indices of rank 0");
    const auto k = std::size_t(it.shape.back());
    if (k > data.shape.size()) fail("ScatterND index depth beyond the data rank");
    const Shape ds = strides(data.shape);
    const std::int64_t slice = count(Shape(data.shape.begin() + std::int64_t(k), data.shape.end()));
    const std::int64_t tuples = k ? std::int64_t(idx.size() / k) : 0;
    if (std::int64_t(upd.v.size()) != tuples * slice) fail("ScatterND updates of the wrong size");
    for (std::int64_t t = 0; t < tuples; ++t) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < k; ++d) {
        std::int64_t j = idx[std::size_t(t) * k + d];
        if (j < 0) j += data.shape[d];
        if (j < 0 || j >= data.shape[d]) fail("ScatterND index out of range");
        off += j * ds[d];
      }
      for (std::int64_t q = 0; q < slice; ++q) data.v[std::size_t(off + q)] = upd.v[std::size_t(t * slice + q)];
    }
    return {data};
  }

  std::vector<Val> f_identity() { return identity(); }
  std::vector<Val> f_add() { return binary([](double a, double b) { return a + b; }); }
  std::vector<Val> f_sub() { return binary([](double a, double b) { return a - b; }); }
  std::vector<Val> f_mul() { return binary([](double a, double b) { return a * b; }); }
  std::vector<Val> f_div() {
    const bool flt = g_.tensor(n_.inputs[0]).type == ElemType::Float32 || g_.tensor(n_.inputs[0]).type == ElemType::Float16;
    return binary([flt, this](double a, double b) {
      if (!flt && b == 0) fail("integer division by zero");
      return a / b;
    });
  }
  std::vector<Val> f_pow() { return binary([](double a, double b) { return std::pow(a, b); }); }
  std::vector<Val> f_min() { return binary([](double a, double b) { return std::min(a, b); }); }
  std::vector<Val> f_max() { return binary([](double a, double b) { return std::max(a, b); }); }
  std::vector<Val> f_mod() {
    return binary([this](double a, double b) {
      if (b == 0) fail("Mod by zero");
      return n_.attr_int("fmod", 0) ? std::fmod(a, b) : a - b * std::floor(a / b);
    });
  }
  std::vector<Val> f_equal() { return binary([](double a, double b) { return a == b ? 1.0 : 0.0; }, true); }
  std::vector<Val> f_less() { return binary([](double a, double b) { return a < b ? 1.0 : 0.0; }, true); }
  std::vector<Val> f_greater() { return binary([](double a, double b) { return a > b ? 1.0 : 0.0; }, true); }
  std::vector<Val> f_and() { return binary([](double a, double b) { return (a != 0 && b != 0) ? 1.0 : 0.0; }, true); }
  std::vector<Val> f_or() { return binary([](double a, double b) { return (a != 0 || b != 0) ? 1.0 : 0.0; }, true); }
  std::vector<Val> f_not() { return unary([](double a) { return a != 0 ? 0.0 : 1.0; }); }
  std::vector<Val> f_neg() { return unary([](double a) { return -a; }); }
  std::vector<Val> f_abs() { return unary([](double a) { return std::fabs(a); }); }
  std::vector<Val> f_sqrt() { return unary([](double a) { return std::sqrt(a); }); }
  std::vector<Val> f_recip() { return unary([](double a) { return 1.0 / a; }); }
  std::vector<Val> f_exp() { return unary([](double a) { return std::exp(a); }); }
  std::vector<Val> f_log() { return unary([](double a) { return std::log(a); }); }
  std::vector<Val> f_floor() { return unary([](double a) { return std::floor(a); }); }
  std::vector<Val> f_ceil() { return unary([](double a) { return std::ceil(a); }); }
  std::vector<Val> f_relu() { return unary([](double a) { return std::max(a, 0.0); }); }
  std::vector<Val> f_sigmoid() { return unary([](double a) { return 1.0 / (1.0 + std::exp(-a)); }); }
  std::vector<Val> f_erf() { return unary([](double a) { return std::erf(a); }); }
  std::vector<Val> f_tanh() { return unary([](double a) { return std::tanh(a); }); }
  std::vector<Val> f_rprod() { return reduce("prod"); }
  std::vector<Val> f_rsum() { return reduce("sum"); }
  std::vector<Val> f_rmax() { return reduce("max"); }
  std::vector<Val> f_rmin() { return reduce("min"); }
  std::vector<Val> f_rmean() { return reduce("mean"); }

  static const std::map<std::string, Fn>& table() {
    static const std::map<std::string, Fn> kTable = {
        {"Identity", &Folder::f_identity}, {"Dropout", &Folder::f_identity}, {"Shape", &Folder::shape},
        {"Size", &Folder::size}, {"Gather", &Folder::gather}, {"Unsqueeze", &Folder::unsqueeze},
        {"Squeeze", &Folder::squeeze}, {"Concat", &Folder::concat}, {"Slice", &Folder::slice},
        {"Reshape", &Folder::reshape}, {"Flatten", &Folder::flatten}, {"Transpose", &Folder::transpose},
        {"Expand", &Folder::expand}, {"Tile", &Folder::tile}, {"ConstantOfShape", &Folder::constant_of_shape},
        {"Range", &Folder::range}, {"Cast", &Folder::cast}, {"Where", &Folder::where},
        {"Add", &Folder::f_add}, {"Sub", &Folder::f_sub}, {"Mul", &Folder::f_mul}, {"Div", &Folder::f_div},
        {"Pow", &Folder::f_pow}, {"Min", &Folder::f_min}, {"Max", &Folder::f_max}, {"Mod", &Folder::f_mod},
        {"Equal", &Folder::f_equal}, {"Less", &Folder::f_less}, {"Greater", &Folder::f_greater},
        {"And", &Folder::f_and}, {"Or", &Folder::f_or}, {"Not", &Folder::f_not}, {"Neg", &Folder::f_neg},
        {"Abs", &Folder::f_abs}, {"Sqrt", &Folder::f_sqrt}, {"Reciprocal", &Folder::f_recip},
        {"Exp", &Folder::f_exp}, {"Log", &Folder::f_log}, {"Floor", &Folder::f_floor}, {"Ceil", &Folder::f_ceil},
        {"Relu", &Folder::f_relu}, {"Sigmoid", &Folder::f_sigmoid}, {"Erf", &Folder::f_erf},
        {"Tanh", &Folder::f_tanh}, {"ReduceProd", &Folder::f_rprod}, {"ReduceSum", &Folder::f_rsum},
        {"ReduceMax", &Folder::f_rmax}, {"ReduceMin", &Folder::f_rmin}, {"ReduceMean", &Folder::f_rmean},
        {"ScatterND", &Folder::scatter_nd},
    };
    return kTable;
  }

  Graph& g_;
  Node& n_;
  std::size_t index_;
  const std::string& source_;
};

}  // namespace

bool fold_node(Graph& graph, std::size_t index, const std::string& source) {
  return Folder(graph, index, source).run();
}

}  // namespace npu::compiler
