// Reference kernels: ops that move or view data without arithmetic (ONNX opset 9-17):
// Reshape (0 copies a dim unless allowzero, -1 inferred), Flatten, Squeeze, Unsqueeze (axes
// attribute before opset 13, input from 13), Transpose (default perm reverses), Concat,
// Split (the canonical "split" sizes, or equal parts), Slice (opset 10+ inputs or opset-9
// attributes; negative indices and steps, clamped as the spec says), Pad (constant, reflect,
// edge; negative pads crop), Gather, Expand, Tile, Shape, Size. Float and integer tensors
// alike.
#include <algorithm>
#include <cstring>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

/// Calls f(x's data vector, y's data vector) for the element kind of `x`; y takes x's type.
template <class F>
void with_data(const RefTensor& x, RefTensor& y, F&& f) {
  y.type = x.type;
  if (x.is_float()) f(x.f, y.f);
  else f(x.i, y.i);
}

/// dst[out index] = src[base + sum_d idx_d * src_strides[d]] over out_shape (row-major).
template <class T>
void strided_gather(const std::vector<T>& src, std::int64_t base, const std::vector<std::int64_t>& src_strides,
                    const std::vector<std::int64_t>& out_shape, std::vector<T>& dst) {
  std::int64_t n = 1;
  for (std::int64_t d : out_shape) n *= d;
  dst.resize(static_cast<std::size_t>(n));
  if (n == 0) return;
  if (out_shape.empty()) {
    dst[0] = src[static_cast<std::size_t>(base)];
    return;
  }
  const std::size_t r = out_shape.size();
  const std::int64_t inner = out_shape[r - 1], s_in = src_strides[r - 1];
  std::vector<std::int64_t> idx(r, 0);
  std::int64_t off = base;
  for (std::int64_t o = 0; o < n; o += inner) {
    T* out = dst.data() + o;
    const T* in = src.data() + off;
    for (std::int64_t t = 0; t < inner; ++t) out[t] = in[t * s_in];
    for (std::size_t d = r - 1; d-- > 0;) {
      off += src_strides[d];
      if (++idx[d] < out_shape[d]) break;
      off -= src_strides[d] * out_shape[d];
      idx[d] = 0;
    }
  }
}

RefTensor view(const RefTensor& x, std::vector<std::int64_t> shape) {
  RefTensor y = x;
  y.shape = std::move(shape);
  return y;
}

const RefTensor& any_in(const OpCall& call, std::size_t k) {
  const RefTensor* t = call.opt(k);
  if (!t) call.fail("input " + std::to_string(k) + " is required but absent");
  return *t;
}

void reshape(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  std::vector<std::int64_t> shape = call.opt(1) ? call.ints(1) : call.node.attr_ints("shape");
  const bool allowzero = call.node.attr_int("allowzero", 0) != 0;
  std::int64_t known = 1, infer = -1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !allowzero) {
      if (d >= x.shape.size()) call.fail("target dim " + std::to_string(d) + " is 0 (copy) but the input has rank " + std::to_string(x.shape.size()));
      shape[d] = x.shape[d];
    }
    if (shape[d] == -1) {
      if (infer >= 0) call.fail("target shape " + shape_str(shape) + " has more than one -1");
      infer = static_cast<std::int64_t>(d);
    } else if (shape[d] < 0) {
      call.fail("target shape has a negative dim " + std::to_string(shape[d]));
    } else {
      known *= shape[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.elements() % known != 0)
      call.fail("cannot reshape " + shape_str(x.shape) + " to " + shape_str(shape));
    shape[static_cast<std::size_t>(infer)] = x.elements() / known;
  }
  if (span(shape, 0, shape.size()) != x.elements())
    call.fail("cannot reshape " + shape_str(x.shape) + " (" + std::to_string(x.elements()) + " elements) to " + shape_str(shape));
  call.out[0] = view(x, shape);
}

void flatten(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::int64_t r = static_cast<std::int64_t>(x.shape.size());
  std::int64_t axis = call.node.attr_int("axis", 1);
  if (axis < -r || axis > r) call.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  if (axis < 0) axis += r;
  const auto a = static_cast<std::size_t>(axis);
  call.out[0] = view(x, {span(x.shape, 0, a), span(x.shape, a, x.shape.size())});
}

std::vector<std::int64_t> axes_of(const OpCall& call) { return call.opt(1) ? call.ints(1) : call.node.attr_ints("axes"); }

void squeeze(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::vector<std::int64_t> axes = axes_of(call);
  std::vector<bool> drop(x.shape.size(), axes.empty());
  for (std::size_t d = 0; d < x.shape.size() && axes.empty(); ++d) drop[d] = x.shape[d] == 1;
  for (std::int64_t a : axes) {
    const std::size_t d = norm_axis(call, a, x.shape.size());
    if (x.shape[d] != 1) call.fail("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(x.shape[d]));
    drop[d] = true;
  }
  std::vector<std::int64_t> shape;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (!drop[d]) shape.push_back(x.shape[d]);
  call.out[0] = view(x, shape);
}

void unsqueeze(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::vector<std::int64_t> axes = axes_of(call);
  const std::size_t r = x.shape.size() + axes.size();
  std::vector<bool> added(r, false);
  for (std::int64_t a : axes) {
    const std::size_t d = norm_axis(call, a, r);
    if (added[d]) call.fail("axis " + std::to_string(a) + " is given twice");
    added[d] = true;
  }
  std::vector<std::int64_t> shape;
  std::size_t src = 0;
  for (std::size_t d = 0; d < r; ++d) shape.push_back(added[d] ? 1 : x.shape[src++]);
  call.out[0] = view(x, shape);
}

void transpose(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::size_t r = x.shape.size();
  std::vector<std::int64_t> perm = call.node.attr_ints("perm");
  if (perm.empty())
    for (std::size_t d = r; d-- > 0;) perm.push_back(static_cast<std::int64_t>(d));
  std::vector<bool> seen(r, false);
  if (perm.size() != r) call.fail("perm has " + std::to_string(perm.size()) + " entries for a rank-" + std::to_string(r) + " input");
  for (std::int64_t p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(r) || seen[static_cast<std::size_t>(p)])
      call.fail("perm " + shape_str(perm) + " is not a permutation of 0.." + std::to_string(r - 1));
    seen[static_cast<std::size_t>(p)] = true;
  }
  const auto in_strides = strides_of(x.shape);
  std::vector<std::int64_t> out_shape(r), src_strides(r);
  for (std::size_t d = 0; d < r; ++d) {
    out_shape[d] = x.shape[static_cast<std::size_t>(perm[d])];
    src_strides[d] = in_strides[static_cast<std::size_t>(perm[d])];
  }
  RefTensor y;
  y.shape = out_shape;
  with_data(x, y, [&](const auto& s, auto& d) { strided_gather(s, 0, src_strides, out_shape, d); });
  call.out[0] = std::move(y);
}

void concat(OpCall& call) {
  if (call.in.empty() || !call.in[0]) call.fail("needs at least one input");
  const RefTensor& first = *call.in[0];
  const std::size_t axis = norm_axis(call, call.node.attr_int("axis", 0), first.shape.size());
  std::vector<std::int64_t> out_shape = first.shape;
  out_shape[axis] = 0;
  for (std::size_t k = 0; k < call.in.size(); ++k) {
    const RefTensor* t = call.in[k];
    if (!t) call.fail("input " + std::to_string(k) + " is absent");
    bool ok = t->shape.size() == first.shape.size() && t->is_float() == first.is_float();
    for (std::size_t d = 0; ok && d < t->shape.size(); ++d) ok = d == axis || t->shape[d] == first.shape[d];
    if (!ok) call.fail("input " + std::to_string(k) + " " + shape_str(t->shape) + " does not match input 0 " + shape_str(first.shape) + " outside axis " + std::to_string(axis));
    out_shape[axis] += t->shape[axis];
  }
  const std::int64_t outer = span(out_shape, 0, axis), inner = span(out_shape, axis + 1, out_shape.size());
  RefTensor y;
  y.shape = out_shape;
  with_data(first, y, [&](const auto&, auto& dst) {
    dst.resize(static_cast<std::size_t>(span(out_shape, 0, out_shape.size())));
    const std::int64_t row = out_shape[axis] * inner;
    std::int64_t at = 0;
    for (const RefTensor* t : call.in) {
      const auto& src = [&]() -> const auto& {
        if constexpr (std::is_same_v<std::decay_t<decltype(dst)>, std::vector<float>>) return t->f;
        else return t->i;
      }();
      const std::int64_t chunk = t->shape[axis] * inner;
      for (std::int64_t o = 0; o < outer; ++o)
        std::copy_n(src.begin() + o * chunk, chunk, dst.begin() + o * row + at);
      at += chunk;
    }
  });
  call.out[0] = std::move(y);
}

void split(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::size_t axis = norm_axis(call, call.node.attr_int("axis", 0), x.shape.size());
  std::vector<std::int64_t> sizes = call.opt(1) ? call.ints(1) : call.node.attr_ints("split");
  const std::int64_t parts = static_cast<std::int64_t>(call.node.outputs.size());
  if (sizes.empty()) {
    if (x.shape[axis] % parts != 0)
      call.fail("dim " + std::to_string(x.shape[axis]) + " does not split into " + std::to_string(parts) + " equal parts");
    sizes.assign(static_cast<std::size_t>(parts), x.shape[axis] / parts);
  }
  std::int64_t total = 0;
  for (std::int64_t s : sizes) total += s;
  if (static_cast<std::int64_t>(sizes.size()) != parts || total != x.shape[axis])
    call.fail("split sizes " + shape_str(sizes) + " do not cover dim " + std::to_string(x.shape[axis]) + " with " + std::to_string(parts) + " outputs");
  const std::int64_t outer = span(x.shape, 0, axis), inner = span(x.shape, axis + 1, x.shape.size());
  const std::int64_t row = x.shape[axis] * inner;
  std::int64_t at = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    RefTensor y;
    y.shape = x.shape;
    y.shape[axis] = sizes[k];
    const std::int64_t chunk = sizes[k] * inner;
    with_data(x, y, [&](const auto& src, auto& dst) {
      dst.resize(static_cast<std::size_t>(outer * chunk));
      for (std::int64_t o = 0; o < outer; ++o) std::copy_n(src.begin() + o * row + at, chunk, dst.begin() + o * chunk);
    });
    at += chunk;
    call.out[k] = std::move(y);
  }
}

void slice(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::size_t r = x.shape.size();
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (call.opt(1)) {  // opset >= 10: inputs
    starts = call.ints(1);
    ends = call.ints(2);
    if (call.opt(3)) axes = call.ints(3);
    if (call.opt(4)) steps = call.ints(4);
  } else {
    starts = call.node.attr_ints("starts");
    ends = call.node.attr_ints("ends");
    axes = call.node.attr_ints("axes");
  }
  if (axes.empty())
    for (std::size_t d = 0; d < starts.size(); ++d) axes.push_back(static_cast<std::int64_t>(d));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    call.fail("starts, ends, axes and steps differ in length");
  std::vector<std::int64_t> first(r, 0), step(r, 1), out_shape = x.shape;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::size_t d = norm_axis(call, axes[k], r);
    const std::int64_t dim = x.shape[d], s = steps[k];
    if (s == 0) call.fail("step 0 on axis " + std::to_string(axes[k]));
    std::int64_t b = starts[k] < 0 ? starts[k] + dim : starts[k];
    std::int64_t e = ends[k] < 0 ? ends[k] + dim : ends[k];
    if (s > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
    } else {
      b = std::clamp<std::int64_t>(b, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
    }
    const std::int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
    out_shape[d] = std::max<std::int64_t>(0, len);
    first[d] = b;
    step[d] = s;
  }
  const auto in_strides = strides_of(x.shape);
  std::int64_t base = 0;
  std::vector<std::int64_t> src_strides(r);
  for (std::size_t d = 0; d < r; ++d) {
    base += first[d] * in_strides[d];
    src_strides[d] = step[d] * in_strides[d];
  }
  RefTensor y;
  y.shape = out_shape;
  with_data(x, y, [&](const auto& s, auto& d) { strided_gather(s, base, src_strides, out_shape, d); });
  call.out[0] = std::move(y);
}

void pad(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::size_t r = x.shape.size();
  const std::vector<std::int64_t> pads = call.opt(1) ? call.ints(1) : call.node.attr_ints("pads");
  if (call.opt(3)) call.fail("the axes input (opset 18) is not implemented by the reference interpreter");
  if (pads.size() != 2 * r) call.fail("pads has " + std::to_string(pads.size()) + " values for a rank-" + std::to_string(r) + " input");
  const std::string mode = call.node.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    call.fail("mode '" + mode + "' is not constant, reflect or edge");
  double value = call.node.attr_float("value", 0.0f);
  if (const RefTensor* v = call.opt(2)) value = v->is_float() ? v->f.at(0) : double(v->i.at(0));
  std::vector<std::int64_t> out_shape(r);
  for (std::size_t d = 0; d < r; ++d) {
    out_shape[d] = x.shape[d] + pads[d] + pads[d + r];
    if (out_shape[d] < 0) call.fail("pads make dim " + std::to_string(d) + " negative");
    if (mode != "constant" && x.shape[d] == 0 && out_shape[d] > 0) call.fail("cannot " + mode + "-pad an empty dim");
  }
  const auto in_strides = strides_of(x.shape), out_strides = strides_of(out_shape);
  RefTensor y;
  y.shape = out_shape;
  const std::int64_t n = span(out_shape, 0, r);
  with_data(x, y, [&](const auto& src, auto& dst) {
    using T = typename std::decay_t<decltype(dst)>::value_type;
    dst.resize(static_cast<std::size_t>(n));
    for (std::int64_t e = 0; e < n; ++e) {
      std::int64_t off = 0;
      bool outside = false;
      for (std::size_t d = 0; d < r; ++d) {
        std::int64_t i = (e / out_strides[d]) % out_shape[d] - pads[d];
        const std::int64_t dim = x.shape[d];
        if (i < 0 || i >= dim) {
          if (mode == "constant") {
            outside = true;
            break;
          }
          if (mode == "edge") i = std::clamp<std::int64_t>(i, 0, dim - 1);
          else {  // reflect (mirror without repeating the edge), period 2 (dim - 1)
            const std::int64_t period = std::max<std::int64_t>(2 * (dim - 1), 1);
            i = ((i % period) + period) % period;
            if (i >= dim) i = period - i;
          }
        }
        off += i * in_strides[d];
      }
      dst[static_cast<std::size_t>(e)] = outside ? static_cast<T>(value) : src[static_cast<std::size_t>(off)];
    }
  });
  call.out[0] = std::move(y);
}

void gather(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const RefTensor& idx = any_in(call, 1);
  if (idx.is_float()) call.fail("indices must be an integer tensor");
  const std::size_t axis = norm_axis(call, call.node.attr_int("axis", 0), x.shape.size());
  const std::int64_t dim = x.shape[axis], outer = span(x.shape, 0, axis), inner = span(x.shape, axis + 1, x.shape.size());
  std::vector<std::int64_t> out_shape(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  out_shape.insert(out_shape.end(), idx.shape.begin(), idx.shape.end());
  out_shape.insert(out_shape.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end());
  for (std::int64_t v : idx.i)
    if (v < -dim || v >= dim) call.fail("index " + std::to_string(v) + " is out of range for a dim of " + std::to_string(dim));
  RefTensor y;
  y.shape = out_shape;
  with_data(x, y, [&](const auto& src, auto& dst) {
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t v : idx.i) {
        const std::int64_t k = v < 0 ? v + dim : v;
        dst.insert(dst.end(), src.begin() + (o * dim + k) * inner, src.begin() + (o * dim + k + 1) * inner);
      }
  });
  call.out[0] = std::move(y);
}

void expand(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::vector<std::int64_t> target = call.ints(1);
  const std::size_t r = std::max(x.shape.size(), target.size());
  std::vector<std::int64_t> out_shape(r), src_strides(r, 0);
  const auto in_strides = strides_of(x.shape);
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t a = d < r - x.shape.size() ? 1 : x.shape[d - (r - x.shape.size())];
    const std::int64_t b = d < r - target.size() ? 1 : target[d - (r - target.size())];
    if (a != b && a != 1 && b != 1) call.fail("cannot expand " + shape_str(x.shape) + " to " + shape_str(target));
    out_shape[d] = a == 1 ? b : a;
    if (d >= r - x.shape.size() && a != 1) src_strides[d] = in_strides[d - (r - x.shape.size())];
  }
  RefTensor y;
  y.shape = out_shape;
  with_data(x, y, [&](const auto& s, auto& d) { strided_gather(s, 0, src_strides, out_shape, d); });
  call.out[0] = std::move(y);
}

void tile(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::vector<std::int64_t> reps = call.ints(1);
  const std::size_t r = x.shape.size();
  if (reps.size() != r) call.fail("repeats has " + std::to_string(reps.size()) + " values for a rank-" + std::to_string(r) + " input");
  std::vector<std::int64_t> out_shape(r);
  for (std::size_t d = 0; d < r; ++d) out_shape[d] = x.shape[d] * reps[d];
  const auto in_strides = strides_of(x.shape), out_strides = strides_of(out_shape);
  const std::int64_t n = span(out_shape, 0, r);
  RefTensor y;
  y.shape = out_shape;
  with_data(x, y, [&](const auto& src, auto& dst) {
    dst.resize(static_cast<std::size_t>(n));
    for (std::int64_t e = 0; e < n; ++e) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < r; ++d) off += ((e / out_strides[d]) % out_shape[d] % x.shape[d]) * in_strides[d];
      dst[static_cast<std::size_t>(e)] = src[static_cast<std::size_t>(off)];
    }
  });
  call.out[0] = std::move(y);
}

void shape_op(OpCall& call) {
  const RefTensor& x = any_in(call, 0);
  const std::int64_t r = static_cast<std::int64_t>(x.shape.size());
  std::int64_t b = call.node.attr_int("start", 0), e = call.node.attr_int("end", r);
  if (b < 0) b += r;
  if (e < 0) e += r;
  b = std::clamp<std::int64_t>(b, 0, r);
  e = std::clamp<std::int64_t>(e, 0, r);
  RefTensor y;
  y.type = ElemType::Int64;
  for (std::int64_t d = b; d < e; ++d) y.i.push_back(x.shape[static_cast<std::size_t>(d)]);
  y.shape = {static_cast<std::int64_t>(y.i.size())};
  call.out[0] = std::move(y);
}

void size_op(OpCall& call) {
  RefTensor y;
  y.type = ElemType::Int64;
  y.i = {any_in(call, 0).elements()};
  call.out[0] = std::move(y);
}

}  // namespace

void add_layout_ops(std::map<std::string, OpKernel>& t) {
  t["Reshape"] = reshape;
  t["Flatten"] = flatten;
  t["Squeeze"] = squeeze;
  t["Unsqueeze"] = unsqueeze;
  t["Transpose"] = transpose;
  t["Concat"] = concat;
  t["Split"] = split;
  t["Slice"] = slice;
  t["Pad"] = pad;
  t["Gather"] = gather;
  t["Expand"] = expand;
  t["Tile"] = tile;
  t["Shape"] = shape_op;
  t["Size"] = size_op;
}

}  // namespace npu::compiler::reference
