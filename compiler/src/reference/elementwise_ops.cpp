// Reference kernels: element-wise binary ops with numpy (multidirectional) broadcasting, as
// the ONNX spec defines them (onnx/docs/Broadcasting.md): Add, Sub, Mul, Div, Pow, Max,
// Min, Sum, Mean (variadic: folded left to right), PRelu (slope broadcast to X), and the
// comparisons Equal, Less, Greater, LessOrEqual, GreaterOrEqual (bool out), Where, the logic
// ops And, Or, Xor, Not (bool in and out) and Mod (fmod=0: the divisor's sign, integers only as
// ONNX requires; fmod=1: C fmod, the dividend's sign).
// Float tensors compute in float32; Add/Sub/Mul/Div/Max/Min/Equal... also take two integer
// tensors (int64 arithmetic, Div truncating toward zero as C and ONNX Runtime do).
#include <algorithm>
#include <cmath>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

/// Output shape and per-dim input strides (0 on a broadcast dim) of a broadcast op, with
/// adjacent dims merged where both inputs step through them alike (so [1,C,H,W] x [1,C,1,1]
/// runs H*W-long inner loops).
struct Broadcast {
  std::vector<std::int64_t> out_shape;  // unmerged, for the result
  std::vector<std::int64_t> dims;       // merged
  std::vector<std::vector<std::int64_t>> strides;  // per input, merged
};

Broadcast broadcast(const OpCall& call, const std::vector<const std::vector<std::int64_t>*>& shapes) {
  std::size_t r = 0;
  for (const auto* s : shapes) r = std::max(r, s->size());
  Broadcast b;
  b.out_shape.assign(r, 1);
  for (const auto* s : shapes)
    for (std::size_t d = 0; d < s->size(); ++d) {
      std::int64_t& o = b.out_shape[r - s->size() + d];
      const std::int64_t v = (*s)[d];
      if (v != 1 && o != 1 && v != o) {
        std::string list;
        for (const auto* t : shapes) list += (list.empty() ? "" : ", ") + shape_str(*t);
        call.fail("input shapes " + list + " do not broadcast (numpy rules)");
      }
      if (v != 1) o = v;
    }
  std::vector<std::vector<std::int64_t>> st;
  for (const auto* s : shapes) {
    std::vector<std::int64_t> aligned(r, 1);
    std::copy(s->begin(), s->end(), aligned.begin() + static_cast<std::ptrdiff_t>(r - s->size()));
    std::vector<std::int64_t> str = strides_of(aligned);
    for (std::size_t d = 0; d < r; ++d)
      if (aligned[d] == 1) str[d] = 0;
    st.push_back(str);
  }
  // Merge dim d into d+1 when every input's stride at d equals its stride at d+1 times
  // the size of d+1 (contiguous across the pair, or broadcast in both).
  std::vector<std::int64_t> dims;
  std::vector<std::vector<std::int64_t>> mst(shapes.size());
  for (std::size_t d = 0; d < r; ++d) {
    if (b.out_shape[d] == 1) continue;  // size-1 dims carry nothing
    bool merge = !dims.empty();
    for (std::size_t k = 0; merge && k < shapes.size(); ++k)
      merge = mst[k].back() == st[k][d] * b.out_shape[d];
    if (merge) {
      dims.back() *= b.out_shape[d];
      for (std::size_t k = 0; k < shapes.size(); ++k) mst[k].back() = st[k][d];
    } else {
      dims.push_back(b.out_shape[d]);
      for (std::size_t k = 0; k < shapes.size(); ++k) mst[k].push_back(st[k][d]);
    }
  }
  if (dims.empty()) {  // every dim 1: one element
    dims.push_back(1);
    for (auto& s : mst) s.push_back(0);
  }
  b.dims = dims;
  b.strides = mst;
  return b;
}

/// out[e] = f(a[ia(e)], b[ib(e)]) over the broadcast output.
template <class T, class U, class F>
void apply2(const Broadcast& bc, const T* a, const T* b, U* out, F f) {
  const std::size_t r = bc.dims.size();
  const std::int64_t inner = bc.dims[r - 1], sa = bc.strides[0][r - 1], sb = bc.strides[1][r - 1];
  std::int64_t outer = 1;
  for (std::size_t d = 0; d + 1 < r; ++d) outer *= bc.dims[d];
  std::vector<std::int64_t> idx(r, 0);
  std::int64_t oa = 0, ob = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    U* __restrict dst = out + o * inner;
    const T* pa = a + oa;
    const T* pb = b + ob;
    if (sa == 1 && sb == 1) for (std::int64_t t = 0; t < inner; ++t) dst[t] = f(pa[t], pb[t]);
    else if (sa == 1 && sb == 0) for (std::int64_t t = 0; t < inner; ++t) dst[t] = f(pa[t], pb[0]);
    else if (sa == 0 && sb == 1) for (std::int64_t t = 0; t < inner; ++t) dst[t] = f(pa[0], pb[t]);
    else for (std::int64_t t = 0; t < inner; ++t) dst[t] = f(pa[t * sa], pb[t * sb]);
    // Advance the odometer over the outer dims.
    for (std::size_t d = r - 1; d-- > 0;) {
      oa += bc.strides[0][d];
      ob += bc.strides[1][d];
      if (++idx[d] < bc.dims[d]) break;
      oa -= bc.strides[0][d] * bc.dims[d];
      ob -= bc.strides[1][d] * bc.dims[d];
      idx[d] = 0;
    }
  }
}

using FloatFn = float (*)(float, float);
using IntFn = std::int64_t (*)(std::int64_t, std::int64_t);

/// Broadcast a op b. FF computes floats; FI integers (nullptr: floats only). Template
/// parameters so the element function inlines into the loops.
template <FloatFn FF, IntFn FI>
RefTensor binary(const OpCall& call, const RefTensor& a, const RefTensor& b) {
  const Broadcast bc = broadcast(call, {&a.shape, &b.shape});
  RefTensor y;
  y.shape = bc.out_shape;
  if constexpr (FF != nullptr) {
    if (a.is_float() && b.is_float()) {
      y.f.resize(static_cast<std::size_t>(y.elements()));
      apply2(bc, a.f.data(), b.f.data(), y.f.data(), [](float u, float v) { return FF(u, v); });
      return y;
    }
  }
  if constexpr (FI != nullptr) {
    if (!a.is_float() && !b.is_float()) {
      y.type = ElemType::Int64;
      y.i.resize(static_cast<std::size_t>(y.elements()));
      apply2(bc, a.i.data(), b.i.data(), y.i.data(), [](std::int64_t u, std::int64_t v) { return FI(u, v); });
      return y;
    }
  }
  call.fail(std::string("inputs are ") + (a.is_float() ? "float" : "integer") + " and " + (b.is_float() ? "float" : "integer") +
            (FI != nullptr ? "; ONNX requires one element type"
                              : "; the reference interpreter implements this op on floats only"));
}

template <FloatFn FF, IntFn FI>
void variadic(OpCall& call) {
  if (call.in.empty() || !call.in[0]) call.fail("needs at least one input");
  RefTensor acc = *call.in[0];
  for (std::size_t k = 1; k < call.in.size(); ++k) {
    if (!call.in[k]) call.fail("input " + std::to_string(k) + " is absent");
    acc = binary<FF, FI>(call, acc, *call.in[k]);
  }
  call.out[0] = std::move(acc);
}

float f_add(float a, float b) { return a + b; }
float f_sub(float a, float b) { return a - b; }
float f_mul(float a, float b) { return a * b; }
float f_div(float a, float b) { return a / b; }
float f_pow(float a, float b) { return std::pow(a, b); }
// ONNX Max/Min propagate NaN (numpy.maximum semantics).
float f_max(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
float f_min(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }
float f_prelu(float x, float slope) { return x < 0 ? slope * x : x; }
std::int64_t i_add(std::int64_t a, std::int64_t b) { return a + b; }
std::int64_t i_sub(std::int64_t a, std::int64_t b) { return a - b; }
std::int64_t i_mul(std::int64_t a, std::int64_t b) { return a * b; }
std::int64_t i_div(std::int64_t a, std::int64_t b) { return b == 0 ? 0 : a / b; }
std::int64_t i_max(std::int64_t a, std::int64_t b) { return std::max(a, b); }
std::int64_t i_min(std::int64_t a, std::int64_t b) { return std::min(a, b); }

void div_op(OpCall& call) {
  const RefTensor* b = call.opt(1);
  if (b && !b->is_float())
    for (std::int64_t v : b->i)
      if (v == 0) call.fail("integer division by zero");
  variadic<f_div, i_div>(call);
}

void pow_op(OpCall& call) {
  // Pow(X float, Y float or integer exponent): the exponent is converted to float.
  const RefTensor& x = call.fin(0);
  const RefTensor* e = call.opt(1);
  if (!e) call.fail("input 1 (exponent) is required");
  RefTensor ef = *e;
  if (!ef.is_float()) {
    ef.type = ElemType::Float32;
    for (std::int64_t v : ef.i) ef.f.push_back(static_cast<float>(v));
    ef.i.clear();
  }
  call.out[0] = binary<f_pow, nullptr>(call, x, ef);
}

void mean_op(OpCall& call) {
  variadic<f_add, nullptr>(call);
  for (float& v : call.out[0].f) v /= static_cast<float>(call.in.size());
}

void prelu(OpCall& call) {
  // The slope broadcasts to X (unidirectional): the output has X's shape.
  const RefTensor& x = call.fin(0);
  RefTensor y = binary<f_prelu, nullptr>(call, x, call.fin(1));
  if (y.shape != x.shape) call.fail("slope " + shape_str(call.fin(1).shape) + " does not broadcast to X " + shape_str(x.shape));
  call.out[0] = std::move(y);
}

float as_f(std::int64_t v) { return static_cast<float>(v); }
template <class T> bool eq(T x, T z) { return x == z; }
template <class T> bool lt(T x, T z) { return x < z; }
template <class T> bool gt(T x, T z) { return x > z; }
template <class T> bool le(T x, T z) { return x <= z; }
template <class T> bool ge(T x, T z) { return x >= z; }
template <bool (*F)(float, float)> float cmp_f(float x, float z) { return F(x, z) ? 1.0f : 0.0f; }
template <bool (*F)(std::int64_t, std::int64_t)> std::int64_t cmp_i(std::int64_t x, std::int64_t z) { return F(x, z); }

/// Comparison to a bool tensor; in float when either side is float, exact on integers.
template <bool (*FF)(float, float), bool (*FI)(std::int64_t, std::int64_t)>
void compare(OpCall& call) {
  const RefTensor* a = call.opt(0);
  const RefTensor* b = call.opt(1);
  if (!a || !b) call.fail("needs two inputs");
  auto as_float = [](const RefTensor& t) {
    RefTensor r = t;
    if (!r.is_float()) {
      r.type = ElemType::Float32;
      for (std::int64_t v : t.i) r.f.push_back(as_f(v));
      r.i.clear();
    }
    return r;
  };
  RefTensor y;
  if (a->is_float() || b->is_float()) {
    const RefTensor t = binary<cmp_f<FF>, nullptr>(call, as_float(*a), as_float(*b));
    y.shape = t.shape;
    for (float v : t.f) y.i.push_back(v != 0.0f);
  } else {
    y = binary<nullptr, cmp_i<FI>>(call, *a, *b);
  }
  y.type = ElemType::Bool;
  call.out[0] = std::move(y);
}

void where(OpCall& call) {
  const RefTensor* c = call.opt(0);
  const RefTensor* x = call.opt(1);
  const RefTensor* z = call.opt(2);
  if (!c || !x || !z) call.fail("needs three inputs (condition, X, Y)");
  if (c->is_float()) call.fail("the condition must be a bool tensor");
  if (x->is_float() != z->is_float()) call.fail("X and Y must have one element type");
  const Broadcast bc = broadcast(call, {&c->shape, &x->shape, &z->shape});
  RefTensor y;
  y.shape = bc.out_shape;
  y.type = x->type;
  const std::int64_t n = y.elements();
  const auto cs = strides_of(bc.out_shape);
  // Plain index arithmetic (Where is rare and small in real exports).
  auto offset = [&](const std::vector<std::int64_t>& shape, std::int64_t e) {
    std::int64_t off = 0, stride = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const std::size_t od = d + (bc.out_shape.size() - shape.size());
      const std::int64_t idx = (e / cs[od]) % bc.out_shape[od];
      off += (shape[d] == 1 ? 0 : idx) * stride;
      stride *= shape[d];
    }
    return static_cast<std::size_t>(off);
  };
  for (std::int64_t e = 0; e < n; ++e) {
    const bool pick = c->i[offset(c->shape, e)] != 0;
    const RefTensor& src = pick ? *x : *z;
    if (src.is_float()) y.f.push_back(src.f[offset(src.shape, e)]);
    else y.i.push_back(src.i[offset(src.shape, e)]);
  }
  call.out[0] = std::move(y);
}

std::int64_t i_and(std::int64_t a, std::int64_t b) { return a != 0 && b != 0; }
std::int64_t i_or(std::int64_t a, std::int64_t b) { return a != 0 || b != 0; }
std::int64_t i_xor(std::int64_t a, std::int64_t b) { return (a != 0) != (b != 0); }

/// And, Or, Xor of two bool tensors (ONNX: bool in, bool out; broadcast).
template <IntFn FI>
void logic(OpCall& call) {
  const RefTensor* a = call.opt(0);
  const RefTensor* b = call.opt(1);
  if (!a || !b) call.fail("needs two inputs");
  if (a->type != ElemType::Bool || b->type != ElemType::Bool) call.fail("inputs must be bool tensors");
  RefTensor y = binary<nullptr, FI>(call, *a, *b);
  y.type = ElemType::Bool;
  call.out[0] = std::move(y);
}

void not_op(OpCall& call) {
  const RefTensor* a = call.opt(0);
  if (!a || a->type != ElemType::Bool) call.fail("needs one bool input");
  RefTensor y = *a;
  for (auto& v : y.i) v = v == 0;
  call.out[0] = std::move(y);
}

// ONNX Mod fmod=0: the remainder takes the divisor's sign (Python's %); fmod=1: C's.
std::int64_t i_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) return 0;
  const std::int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
std::int64_t i_fmod(std::int64_t a, std::int64_t b) { return b == 0 ? 0 : a % b; }
float f_fmod(float a, float b) { return std::fmod(a, b); }

void mod_op(OpCall& call) {
  call.only_attrs({"fmod"});
  const RefTensor* a = call.opt(0);
  const RefTensor* b = call.opt(1);
  if (!a || !b) call.fail("needs two inputs");
  const bool fmod = call.node.attr_int("fmod", 0) != 0;
  if (!fmod && (a->is_float() || b->is_float()))
    call.fail("Mod of floats needs fmod=1 (ONNX Mod: fmod=0 is for integers)");
  call.out[0] = fmod ? binary<f_fmod, i_fmod>(call, *a, *b) : binary<nullptr, i_mod>(call, *a, *b);
}

}  // namespace

void add_elementwise_ops(std::map<std::string, OpKernel>& t) {
  t["Add"] = variadic<f_add, i_add>;
  t["Sub"] = variadic<f_sub, i_sub>;
  t["Mul"] = variadic<f_mul, i_mul>;
  t["Div"] = div_op;
  t["Pow"] = pow_op;
  t["Max"] = variadic<f_max, i_max>;
  t["Min"] = variadic<f_min, i_min>;
  t["Sum"] = variadic<f_add, i_add>;
  t["Mean"] = mean_op;
  t["PRelu"] = prelu;
  t["Equal"] = compare<eq<float>, eq<std::int64_t>>;
  t["Less"] = compare<lt<float>, lt<std::int64_t>>;
  t["Greater"] = compare<gt<float>, gt<std::int64_t>>;
  t["LessOrEqual"] = compare<le<float>, le<std::int64_t>>;
  t["GreaterOrEqual"] = compare<ge<float>, ge<std::int64_t>>;
  t["Where"] = where;
  t["And"] = logic<i_and>;
  t["Or"] = logic<i_or>;
  t["Xor"] = logic<i_xor>;
  t["Not"] = not_op;
  t["Mod"] = mod_op;
}

}  // namespace npu::compiler::reference
