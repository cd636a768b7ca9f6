// Reference kernels: element-wise unary ops and activations (ONNX opset 9-17 definitions):
//   Relu       max(0, x)
//   LeakyRelu  x >= 0 ? x : alpha x                     (alpha default 0.01)
//   Sigmoid    1 / (1 + e^-x)
//   HardSigmoid max(0, min(1, alpha x + beta))           (alpha 0.2, beta 0.5)
//   HardSwish  x * max(0, min(1, x / 6 + 1 / 2))
//   Clip       min(max(x, lo), hi): with lo > hi every value becomes hi, as the ONNX spec
//              says; bounds from the canonical min/max attributes or opset-11 inputs
//   Gelu       x / 2 * (1 + erf(x / sqrt 2))             (the compiler's recognised form;
//              approximate="tanh": x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))))
//   Elu, Selu, Softplus, Softsign, Tanh, Erf, Exp, Log, Sqrt, Reciprocal, Neg, Abs, Floor,
//   Ceil, Round (half to even), Sign, Sin, Cos; Identity and Dropout (inference: identity,
//   any mask output all true; training_mode refused unless ratio is 0); Cast between float and integer types
//   (to float16: rounded to half precision, kept as float32).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

struct Params {
  float a = 0, b = 0;
};
using UnaryFn = float (*)(float, const Params&);

template <UnaryFn F>
void unary_apply(OpCall& call, const Params& p) {
  const RefTensor& x = call.fin(0);
  RefTensor y;
  y.shape = x.shape;
  y.f.resize(x.f.size());
  const float* __restrict src = x.f.data();
  float* __restrict dst = y.f.data();
  for (std::size_t e = 0; e < x.f.size(); ++e) dst[e] = F(src[e], p);
  call.out[0] = std::move(y);
}

template <UnaryFn F>
void unary(OpCall& call) {
  unary_apply<F>(call, {});
}

float relu(float x, const Params&) { return x > 0.0f ? x : 0.0f; }
float leaky(float x, const Params& p) { return x >= 0.0f ? x : p.a * x; }
float sigmoid(float x, const Params&) { return 1.0f / (1.0f + std::exp(-x)); }
// HardSigmoid and HardSwish in double, rounded to float once: the exact function of the float
// input (ONNX defines the math, not a float evaluation order). In float at each step, alpha x +
// beta and x (x/6 + 1/2) pick up to two roundings, and the int8 tables built from these kernels
// (int8_lut) were 1 LSB off the independent int8 reference on 19 (HardSwish) and 100
// (HardSigmoid) of 51,200 entries over decimal grids (QuantisedReferenceVsBackEnd).
float hard_sigmoid(float x, const Params& p) {
  return float(std::fmax(0.0, std::fmin(1.0, double(p.a) * double(x) + double(p.b))));
}
float hard_swish(float x, const Params&) {
  const double xd = x;
  return float(xd * std::fmax(0.0, std::fmin(1.0, xd / 6.0 + 0.5)));
}
// std::min/max, not fmin/fmax: a NaN input stays NaN (ONNX Runtime does the same).
float clip(float x, const Params& p) {
  const float lo = x < p.a ? p.a : x;
  return lo > p.b ? p.b : lo;
}
float gelu_erf(float x, const Params&) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }
float gelu_tanh(float x, const Params&) {
  return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
float elu(float x, const Params& p) { return x >= 0.0f ? x : p.a * (std::exp(x) - 1.0f); }
float selu(float x, const Params& p) { return p.b * (x > 0.0f ? x : p.a * (std::exp(x) - 1.0f)); }
float softplus(float x, const Params&) { return x > 20.0f ? x : std::log1p(std::exp(x)); }
float softsign(float x, const Params&) { return x / (1.0f + std::fabs(x)); }
float tanh_(float x, const Params&) { return std::tanh(x); }
float erf_(float x, const Params&) { return std::erf(x); }
float exp_(float x, const Params&) { return std::exp(x); }
float log_(float x, const Params&) { return std::log(x); }
float sqrt_(float x, const Params&) { return std::sqrt(x); }
float recip(float x, const Params&) { return 1.0f / x; }
float neg(float x, const Params&) { return -x; }
float abs_(float x, const Params&) { return std::fabs(x); }
float floor_(float x, const Params&) { return std::floor(x); }
float ceil_(float x, const Params&) { return std::ceil(x); }
float round_(float x, const Params&) { return std::nearbyint(x); }  // default FE_TONEAREST: half to even
float sign_(float x, const Params&) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }
float sin_(float x, const Params&) { return std::sin(x); }
float cos_(float x, const Params&) { return std::cos(x); }

void leaky_relu(OpCall& call) { unary_apply<leaky>(call, {call.node.attr_float("alpha", 0.01f), 0}); }
void hard_sigmoid_op(OpCall& call) {
  unary_apply<hard_sigmoid>(call, {call.node.attr_float("alpha", 0.2f), call.node.attr_float("beta", 0.5f)});
}
void elu_op(OpCall& call) { unary_apply<elu>(call, {call.node.attr_float("alpha", 1.0f), 0}); }
void selu_op(OpCall& call) {
  unary_apply<selu>(call, {call.node.attr_float("alpha", 1.67326319217681884765625f),
                           call.node.attr_float("gamma", 1.05070102214813232421875f)});
}

void clip_op(OpCall& call) {
  // Canonical IR form: attributes min/max (absent bound = -FLT_MAX / FLT_MAX). A Clip built
  // in code may still carry the opset-11 inputs: a present input wins.
  Params p{call.node.attr_float("min", -FLT_MAX), call.node.attr_float("max", FLT_MAX)};
  for (std::size_t k = 1; k <= 2; ++k)
    if (const RefTensor* t = call.opt(k)) {
      if (t->elements() != 1) call.fail("bound input " + std::to_string(k) + " must be a scalar, has shape " + shape_str(t->shape));
      (k == 1 ? p.a : p.b) = t->is_float() ? t->f[0] : static_cast<float>(t->i[0]);
    }
  unary_apply<clip>(call, p);
}

void gelu(OpCall& call) {
  const std::string approx = call.node.attr_string("approximate", "none");
  if (approx == "tanh") unary<gelu_tanh>(call);
  else if (approx == "none") unary<gelu_erf>(call);
  else call.fail("attribute approximate='" + approx + "' is not 'none' or 'tanh'");
}

void identity(OpCall& call) {
  const RefTensor* x = call.opt(0);
  if (!x) call.fail("input 0 is required");
  // Dropout opset 12+: (data, ratio, training_mode); training drops at random -- refused,
  // unless ratio is 0: then nothing is dropped and the scale 1 / (1 - ratio) is 1, the
  // identity (torchvision's swin_t attention dropout, exported p = 0 with training_mode true;
  // the compiler's training-dropout pass treats it alike).
  if (const RefTensor* training = call.opt(2); training && call.node.op_type == "Dropout") {
    const bool on = training->is_float() ? training->f.at(0) != 0.0f : training->i.at(0) != 0;
    const RefTensor* ratio = call.opt(1);
    const double r = !ratio ? 0.5 : ratio->is_float() ? double(ratio->f.at(0)) : double(ratio->i.at(0));
    if (on && r != 0)
      call.fail("training_mode is true: Dropout then drops values at random; the reference interpreter runs inference");
  }
  call.out[0] = *x;
  if (call.node.op_type == "Dropout" && call.wants(1)) {  // mask: all kept at inference
    RefTensor m;
    m.shape = x->shape;
    m.type = ElemType::Bool;
    m.i.assign(static_cast<std::size_t>(x->elements()), 1);
    call.out[1] = std::move(m);
  }
}

/// `v` rounded to the nearest IEEE binary16 value (ties to even), overflow to infinity, as
/// a cast to float16 does; returned as float32 (the interpreter's float type).
float round_to_half(float v) {
  if (!std::isfinite(v) || v == 0.0f) return v;
  const float a = std::fabs(v);
  if (a >= 65520.0f) return std::copysign(INFINITY, v);  // past max half 65504 + half an ulp
  int e;
  std::frexp(a, &e);                   // a = m * 2^e, m in [0.5, 1)
  const int ulp_exp = std::max(e - 11, -24);  // 11 significant bits; subnormals step 2^-24
  const float q = std::ldexp(std::nearbyint(std::ldexp(a, -ulp_exp)), ulp_exp);
  return std::copysign(q, v);
}

void cast(OpCall& call) {
  // ONNX TensorProto data types: 1 float, 10 float16, 11 double -> float32 here; 6 int32,
  // 7 int64, 3 int8, 2 uint8, 9 bool -> integers (float to integer truncates toward zero).
  const RefTensor* x = call.opt(0);
  if (!x) call.fail("input 0 is required");
  const std::int64_t to = call.node.attr_int("to", 1);
  RefTensor y;
  y.shape = x->shape;
  if (to == 1 || to == 10 || to == 11) {
    if (x->is_float()) y.f = x->f;
    else for (std::int64_t v : x->i) y.f.push_back(static_cast<float>(v));
    if (to == 10)
      for (float& v : y.f) v = round_to_half(v);
  } else if (to == 6 || to == 7 || to == 3 || to == 2 || to == 9) {
    y.type = to == 9 ? ElemType::Bool : to == 6 ? ElemType::Int32 : to == 3 ? ElemType::Int8 : to == 2 ? ElemType::Uint8 : ElemType::Int64;
    if (x->is_float()) for (float v : x->f) y.i.push_back(to == 9 ? v != 0.0f : static_cast<std::int64_t>(v));
    else for (std::int64_t v : x->i) y.i.push_back(to == 9 ? v != 0 : v);
  } else {
    call.fail("Cast to ONNX data type " + std::to_string(to) + " is not implemented by the reference interpreter");
  }
  call.out[0] = std::move(y);
}

}  // namespace

void add_activation_ops(std::map<std::string, OpKernel>& t) {
  t["Relu"] = unary<relu>;
  t["LeakyRelu"] = leaky_relu;
  t["Sigmoid"] = unary<sigmoid>;
  t["HardSigmoid"] = hard_sigmoid_op;
  t["HardSwish"] = unary<hard_swish>;
  t["Clip"] = clip_op;
  t["Gelu"] = gelu;
  t["Elu"] = elu_op;
  t["Selu"] = selu_op;
  t["Softplus"] = unary<softplus>;
  t["Softsign"] = unary<softsign>;
  t["Tanh"] = unary<tanh_>;
  t["Erf"] = unary<erf_>;
  t["Exp"] = unary<exp_>;
  t["Log"] = unary<log_>;
  t["Sqrt"] = unary<sqrt_>;
  t["Reciprocal"] = unary<recip>;
  t["Neg"] = unary<neg>;
  t["Abs"] = unary<abs_>;
  t["Floor"] = unary<floor_>;
  t["Ceil"] = unary<ceil_>;
  t["Round"] = unary<round_>;
  t["Sign"] = unary<sign_>;
  t["Sin"] = unary<sin_>;
  t["Cos"] = unary<cos_>;
  t["Identity"] = identity;
  t["Dropout"] = identity;
  t["Cast"] = cast;
}

}  // namespace npu::compiler::reference
