// Reference kernels: Conv and ConvTranspose (ONNX opset 1-17 semantics: groups incl.
// depthwise, strides, explicit or auto pads, dilations, optional bias; Conv 1-D, 2-D and 3-D,
// ConvTranspose 1-D and 2-D).
//
//   Y[n, k, oh, ow] = B[k] + sum_{c < C/G, i < kh, j < kw} X[n, g*C/G + c, oh*sh - pt + i*dh, ow*sw - pl + j*dw]
//                                                         * W[k, c, i, j],   g = k / (K/G)
// with X = 0 outside the input (zero padding). 3-D (NCDHW): output depth slice od is the sum
// over c and kernel depth kd of the 2-D convolutions above of input slice
// id = od*sd - pf + kd*dd (skipped outside [0, D): zero padding) with W[k, c, kd].
//
// Direct loops, no im2col: per output channel the plane is accumulated tap by tap, the
// innermost loop a contiguous run of output columns (an axpy the compiler vectorises);
// taps that fall in the padding are clipped out of the loop bounds, not tested per element.
// Output channels are split across threads; each output element is summed by one thread in
// the order c, i, j, so the result does not depend on the thread count.
#include <algorithm>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// Checks Conv's inputs (rank 3 or 4, group, kernel_shape, bias) and returns
// its window: spatial sizes, strides, dilations, pads and output size.
Window conv_window(const OpCall& call, const RefTensor& x, const RefTensor& w, const RefTensor* b) {
  if (x.shape.size() < 3 || x.shape.size() > 5)
    call.fail("input X has shape " + shape_str(x.shape) +
              "; the reference interpreter implements 1-D, 2-D and 3-D Conv (rank 3, 4 or 5)");
  if (w.shape.size() != x.shape.size())
    call.fail("weight W has shape " + shape_str(w.shape) + ", rank differs from X " + shape_str(x.shape));
  const std::int64_t C = x.shape[1], K = w.shape[0];
  const std::int64_t G = call.node.attr_int("group", 1);
  if (G < 1 || C % G != 0 || K % G != 0 || w.shape[1] != C / G)
    call.fail("group " + std::to_string(G) + " does not fit X " + shape_str(x.shape) + " and W " + shape_str(w.shape) +
              " (need C and K divisible by group and W dim 1 = C/group)");
  const std::vector<std::int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  const std::vector<std::int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  if (call.node.has_attr("kernel_shape") && call.node.attr_ints("kernel_shape") != kernel)
    call.fail("attribute kernel_shape " + shape_str(call.node.attr_ints("kernel_shape")) + " differs from W's " + shape_str(kernel));
  if (b && (!b->is_float() || b->elements() != K))
    call.fail("bias B has shape " + shape_str(b->shape) + ", expected [" + std::to_string(K) + "]");
  return window_of(call, spatial, kernel, false);
}

// The output columns each kernel column reaches: for column j, [lo[j], hi[j]) are the ow
// whose iw = ow*sw - pl + j*dw lies in [0, W), so taps in the padding are never visited.
struct TapColumns {
  std::vector<std::int64_t> lo, hi;
  bool pointwise = false;  ///< 1x1, stride 1, no padding: one axpy over the whole plane
};

// TapColumns of `win`.
TapColumns tap_columns(const Window& win) {
  TapColumns cols;
  const std::int64_t W = win.in_w, OW = win.out_w, KW = win.k_w;
  cols.lo.resize(KW);
  cols.hi.resize(KW);
  // Valid output-column range of each kernel column j: iw = ow*sw - pl + j*dw in [0, W).
  for (std::int64_t j = 0; j < KW; ++j) {
    const std::int64_t off = j * win.d_w - win.pad_l;
    cols.lo[j] = std::max<std::int64_t>(0, ceil_div(-off, win.s_w));
    cols.hi[j] = std::min<std::int64_t>(OW, floor_div(W - 1 - off, win.s_w) + 1);
  }
  cols.pointwise = win.k_h == 1 && KW == 1 && win.s_h == 1 && win.s_w == 1 && win.pad_t == 0 && win.pad_l == 0 &&
                   win.pad_b == 0 && win.pad_r == 0;
  return cols;
}

// Adds one input channel plane `in` (H x W), weighted by its kernel `wk` (KH x KW), to the
// output plane `out` (OH x OW), tap by tap; each tap's innermost loop is a contiguous run of
// output columns (an axpy the compiler vectorises).
void accumulate_channel(float* __restrict out, const float* __restrict in, const float* wk, const Window& win,
                        const TapColumns& cols) {
  const std::int64_t H = win.in_h, W = win.in_w, OH = win.out_h, OW = win.out_w, KH = win.k_h, KW = win.k_w;
  if (cols.pointwise) {  // 1x1, stride 1, no padding: one axpy over the whole plane
    const float wv = wk[0];
    for (std::int64_t p = 0; p < OH * OW; ++p) out[p] += wv * in[p];
    return;
  }
  for (std::int64_t i = 0; i < KH; ++i) {
    const std::int64_t ih_off = i * win.d_h - win.pad_t;
    for (std::int64_t j = 0; j < KW; ++j) {
      const float wv = wk[i * KW + j];
      const std::int64_t lo = cols.lo[j], hi = cols.hi[j];
      if (lo >= hi) continue;
      const std::int64_t iw0 = lo * win.s_w - win.pad_l + j * win.d_w;
      for (std::int64_t oh = 0; oh < OH; ++oh) {
        const std::int64_t ih = oh * win.s_h + ih_off;
        if (ih < 0 || ih >= H) continue;
        const float* __restrict row = in + ih * W + iw0;
        float* __restrict orow = out + oh * OW + lo;
        const std::int64_t len = hi - lo;
        if (win.s_w == 1) {
          for (std::int64_t t = 0; t < len; ++t) orow[t] += wv * row[t];
        } else {
          const std::int64_t s = win.s_w;
          for (std::int64_t t = 0; t < len; ++t) orow[t] += wv * row[t * s];
        }
      }
    }
  }
}

void conv(OpCall& call) {
  call.only_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const RefTensor& x = call.fin(0);
  const RefTensor& w = call.fin(1);
  const RefTensor* b = call.opt(2);
  const Window win = conv_window(call, x, w, b);
  const std::int64_t N = x.shape[0], C = x.shape[1], K = w.shape[0];
  const std::int64_t G = call.node.attr_int("group", 1);

  const std::int64_t Cg = C / G, Kg = K / G;
  const std::int64_t H = win.in_h, W = win.in_w, OH = win.out_h, OW = win.out_w, KH = win.k_h, KW = win.k_w;
  const std::int64_t D = win.in_d, OD = win.out_d, KD = win.k_d;  // 1 below 3-D
  std::vector<std::int64_t> out_shape{N, K};
  if (x.shape.size() == 5) out_shape.push_back(OD);
  if (x.shape.size() >= 4) out_shape.push_back(OH);
  out_shape.push_back(OW);
  RefTensor y = RefTensor::zeros(out_shape);
  const float* xd = x.f.data();
  const float* wd = w.f.data();
  const float* bd = b ? b->f.data() : nullptr;
  float* yd = y.f.data();
  const TapColumns cols = tap_columns(win);

  parallel_for(call.threads, N * K, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t nk = begin; nk < end; ++nk) {
      const std::int64_t n = nk / K, k = nk % K, g = k / Kg;
      const float bias = bd ? bd[k] : 0.0f;
      for (std::int64_t od = 0; od < OD; ++od) {
        float* __restrict out = yd + (nk * OD + od) * OH * OW;
        std::fill(out, out + OH * OW, bias);
        for (std::int64_t c = 0; c < Cg; ++c)
          for (std::int64_t kd = 0; kd < KD; ++kd) {
            const std::int64_t id = od * win.s_d - win.pad_f + kd * win.d_d;
            if (id < 0 || id >= D) continue;  // zero padding in depth
            accumulate_channel(out, xd + ((n * C + g * Cg + c) * D + id) * H * W,
                               wd + (((k * Cg + c) * KD + kd) * KH) * KW, win, cols);
          }
      }
    }
  });
  call.out[0] = std::move(y);
}

/// ConvTranspose (the gradient of Conv with respect to its input):
///   Y[n, g*K/G + k, ih*sh - pt + i*dh, iw*sw - pl + j*dw] += X[n, g*C/G + c, ih, iw] * W[g*C/G + c, k, i, j]
/// W is [C, K/G, kh, kw]. Output size per axis: s (in - 1) + output_padding + d (k - 1) + 1
/// - pad_begin - pad_end; with output_shape (or auto_pad SAME_*, output = in * s) the total
/// padding is what makes that size, split as ONNX says: SAME_LOWER puts the odd one at the
/// beginning, otherwise (SAME_UPPER, or NOTSET with output_shape: ONNX's backend test and
/// ONNX Runtime agree) at the end; a negative total (output_shape larger than the full
/// result) extends the end with zeros.
void conv_transpose(OpCall& call) {
  call.only_attrs({"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"});
  const RefTensor& x = call.fin(0);
  const RefTensor& w = call.fin(1);
  const RefTensor* b = call.opt(2);
  const Node& node = call.node;
  if (x.shape.size() < 3 || x.shape.size() > 4 || w.shape.size() != x.shape.size())
    call.fail("X " + shape_str(x.shape) + " and W " + shape_str(w.shape) +
              ": the reference interpreter implements 1-D and 2-D ConvTranspose (rank 3 or 4, same rank)");
  const std::size_t r = x.shape.size() - 2;
  const std::int64_t N = x.shape[0], C = x.shape[1], G = node.attr_int("group", 1);
  if (G < 1 || C % G != 0 || w.shape[0] != C)
    call.fail("group " + std::to_string(G) + " does not fit X " + shape_str(x.shape) + " and W " + shape_str(w.shape) +
              " (need W dim 0 = C, C divisible by group)");
  const std::int64_t Cg = C / G, Kg = w.shape[1], K = Kg * G;
  if (b && (!b->is_float() || b->elements() != K))
    call.fail("bias B has shape " + shape_str(b->shape) + ", expected [" + std::to_string(K) + "]");
  auto list = [&](const char* key, std::int64_t def) {
    std::vector<std::int64_t> v = node.attr_ints(key, std::vector<std::int64_t>(r, def));
    if (v.size() != r) call.fail(std::string("attribute '") + key + "' has " + std::to_string(v.size()) + " values, expected " + std::to_string(r));
    return v;
  };
  const auto s = list("strides", 1), d = list("dilations", 1), op = list("output_padding", 0);
  std::vector<std::int64_t> pads = node.attr_ints("pads", std::vector<std::int64_t>(2 * r, 0));
  if (pads.size() != 2 * r) call.fail("attribute 'pads' has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * r));
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  std::vector<std::int64_t> out_size = node.attr_ints("output_shape");
  if (out_size.size() > r) out_size.erase(out_size.begin(), out_size.end() - static_cast<std::ptrdiff_t>(r));  // [N, C, ...] form
  if (out_size.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    for (std::size_t a = 0; a < r; ++a) out_size.push_back(x.shape[2 + a] * s[a]);
  std::vector<std::int64_t> out(r);
  for (std::size_t a = 0; a < r; ++a) {
    const std::int64_t full = s[a] * (x.shape[2 + a] - 1) + op[a] + d[a] * (w.shape[2 + a] - 1) + 1;
    if (!out_size.empty()) {
      const std::int64_t total = full - out_size[a];
      pads[a] = auto_pad == "SAME_LOWER" ? total - total / 2 : total / 2;
      pads[a + r] = total - pads[a];
    } else if (auto_pad == "VALID") {
      pads[a] = pads[a + r] = 0;
    }
    out[a] = full - pads[a] - pads[a + r];
    if (out[a] < 1) call.fail("output size " + std::to_string(out[a]) + " on spatial axis " + std::to_string(a) + " is not positive");
  }
  // 1-D as 2-D with height 1.
  const std::int64_t H = r == 2 ? x.shape[2] : 1, W = x.shape.back(), KH = r == 2 ? w.shape[2] : 1, KW = w.shape.back();
  const std::int64_t OH = r == 2 ? out[0] : 1, OW = out.back();
  const std::int64_t sh = r == 2 ? s[0] : 1, sw = s.back(), dh = r == 2 ? d[0] : 1, dw = d.back();
  const std::int64_t pt = r == 2 ? pads[0] : 0, pl = pads[r - 1];
  std::vector<std::int64_t> out_shape{N, K};
  out_shape.insert(out_shape.end(), out.begin(), out.end());
  RefTensor y = RefTensor::zeros(out_shape);
  parallel_for(call.threads, N * K, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t nk = begin; nk < end; ++nk) {
      const std::int64_t n = nk / K, k = nk % K, g = k / Kg, kk = k % Kg;
      float* o = y.f.data() + nk * OH * OW;
      std::fill(o, o + OH * OW, b ? b->f[static_cast<std::size_t>(k)] : 0.0f);
      for (std::int64_t c = 0; c < Cg; ++c) {
        const float* in = x.f.data() + (n * C + g * Cg + c) * H * W;
        const float* wk = w.f.data() + ((g * Cg + c) * Kg + kk) * KH * KW;
        for (std::int64_t i = 0; i < KH; ++i)
          for (std::int64_t j = 0; j < KW; ++j) {
            const float wv = wk[i * KW + j];
            for (std::int64_t ih = 0; ih < H; ++ih) {
              const std::int64_t oh = ih * sh - pt + i * dh;
              if (oh < 0 || oh >= OH) continue;
              for (std::int64_t iw = 0; iw < W; ++iw) {
                const std::int64_t ow = iw * sw - pl + j * dw;
                if (ow >= 0 && ow < OW) o[oh * OW + ow] += wv * in[ih * W + iw];
              }
            }
          }
      }
    }
  });
  call.out[0] = std::move(y);
}

}  // namespace

void add_conv_ops(std::map<std::string, OpKernel>& t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = conv_transpose;
}

}  // namespace npu::compiler::reference
