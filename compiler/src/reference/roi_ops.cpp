// Reference kernels of the two ops a two-stage detector's host part ends in: NonMaxSuppression
// and RoiAlign (ONNX Operators.md, opsets 10-22). Both follow ONNX Runtime (1.30,
// non_max_suppression.cc and roialign.cc), the runtime users deploy with; ONNX's own Python
// reference is a port of the same code. Float arithmetic in the same order as ONNX Runtime's,
// so that the values match it to the last bit where the order decides.
//
//   NonMaxSuppression(boxes [B, S, 4], scores [B, C, S], max_output_boxes_per_class [1]
//     (absent: 0), iou_threshold [1] (absent: 0), score_threshold [1] (absent: none)),
//     attribute center_point_box (0: [y1, x1, y2, x2], either diagonal; 1: [xc, yc, w, h])
//     -> selected_indices int64 [n, 3] of (batch, class, box), batch by batch, class by class,
//     each class in selection order. Per (batch, class): the boxes whose score is above
//     score_threshold (strictly), taken by score, highest first (equal scores: lower box
//     index first); a box is kept unless its IoU with a box already kept for the class is
//     above iou_threshold (strictly); IoU is 0 when either box or their intersection has no
//     area. At most max_output_boxes_per_class a class (0 keeps none).
//   RoiAlign(X [N, C, H, W], rois [R, 4] as (x1, y1, x2, y2), batch_indices int64 [R]),
//     attributes mode (avg | max), output_height/_width (1), sampling_ratio (0: adaptive),
//     spatial_scale (1), coordinate_transformation_mode (opset 16+: half_pixel default, or
//     output_half_pixel; opset 10: output_half_pixel) -> Y [R, C, oh, ow]. With offset 0.5
//     for half_pixel (else 0): start = roi * scale - offset; size = end - start (at least 1 for
//     output_half_pixel); each output bin averages (or, as ONNX Runtime, takes the max of
//     each sample's largest weighted corner) grid_h x grid_w bilinear samples at
//     start + p bin + (i + 0.5) bin / grid, grid = sampling_ratio or ceil(size / out). A sample
//     outside [-1, H] x [-1, W] counts 0; coordinates below 0 clamp to 0, and to H - 1 / W - 1
//     at the far border.
#include <algorithm>
#include <cmath>
#include <queue>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

// ---- NonMaxSuppression -------------------------------------------------------------------

struct Corners {
  float y_min, x_min, y_max, x_max;
};

Corners corners(const float* b, bool center) {
  if (center) {
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[1] - hh, b[0] - hw, b[1] + hh, b[0] + hw};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool suppresses(const Corners& a, const Corners& b, float iou_threshold) {
  const float ix_min = std::max(a.x_min, b.x_min), iy_min = std::max(a.y_min, b.y_min);
  const float ix_max = std::min(a.x_max, b.x_max), iy_max = std::min(a.y_max, b.y_max);
  const float inter = std::max(0.0f, ix_max - ix_min) * std::max(0.0f, iy_max - iy_min);
  if (inter <= 0) return false;
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  if (area_a <= 0 || area_b <= 0) return false;
  const float uni = area_a + area_b - inter;
  if (uni <= 0) return false;
  return inter / uni > iou_threshold;
}

float optional_scalar(const OpCall& call, std::size_t k, float absent) {
  const RefTensor* t = call.opt(k);
  if (!t) return absent;
  if (t->elements() != 1) call.fail("input " + std::to_string(k) + " must hold one value, it is " + shape_str(t->shape));
  return t->is_float() ? t->f[0] : float(t->i[0]);
}

void non_max_suppression(OpCall& call) {
  call.only_attrs({"center_point_box"});
  const RefTensor& boxes = call.fin(0);
  const RefTensor& scores = call.fin(1);
  if (boxes.shape.size() != 3 || boxes.shape[2] != 4)
    call.fail("boxes must be [num_batches, spatial_dimension, 4], it is " + shape_str(boxes.shape));
  if (scores.shape.size() != 3 || scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1])
    call.fail("scores must be [num_batches, num_classes, spatial_dimension] = [" + std::to_string(boxes.shape[0]) +
              ", C, " + std::to_string(boxes.shape[1]) + "], it is " + shape_str(scores.shape));
  const std::int64_t center = call.node.attr_int("center_point_box", 0);
  if (center != 0 && center != 1) call.fail("center_point_box must be 0 or 1, it is " + std::to_string(center));
  const RefTensor* max_t = call.opt(2);
  if (max_t && (max_t->is_float() || max_t->elements() != 1))
    call.fail("max_output_boxes_per_class must be one int64 value, it is " + shape_str(max_t->shape));
  const std::int64_t max_out = max_t ? max_t->i[0] : 0;
  const float iou = optional_scalar(call, 3, 0.0f);
  if (!(iou >= 0.0f && iou <= 1.0f))
    call.fail("iou_threshold must be in [0, 1] (as ONNX Runtime requires), it is " + std::to_string(iou));
  const bool has_score = call.opt(4) != nullptr;
  const float score_min = optional_scalar(call, 4, 0.0f);
  const std::int64_t B = boxes.shape[0], C = scores.shape[1], S = boxes.shape[1];
  std::vector<std::int64_t> sel;
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t c = 0; c < C && max_out > 0; ++c) {
      const float* sc = scores.f.data() + (b * C + c) * S;
      // Highest score first; equal scores: the lower box index first (ONNX Runtime's order).
      const auto later = [&](std::int64_t x, std::int64_t y) { return sc[x] < sc[y] || (sc[x] == sc[y] && x > y); };
      std::priority_queue<std::int64_t, std::vector<std::int64_t>, decltype(later)> q(later);
      for (std::int64_t s = 0; s < S; ++s)
        if (!has_score || sc[s] > score_min) q.push(s);
      std::vector<Corners> kept;
      std::int64_t n = 0;
      while (!q.empty() && n < max_out) {
        const std::int64_t s = q.top();
        q.pop();
        const Corners box = corners(boxes.f.data() + (b * S + s) * 4, center == 1);
        if (std::any_of(kept.begin(), kept.end(), [&](const Corners& k) { return suppresses(k, box, iou); })) continue;
        kept.push_back(box);
        sel.insert(sel.end(), {b, c, s});
        ++n;
      }
    }
  RefTensor y;
  y.type = ElemType::Int64;
  y.shape = {std::int64_t(sel.size() / 3), 3};
  y.i = std::move(sel);
  call.out[0] = std::move(y);
}

// ---- RoiAlign ----------------------------------------------------------------------------

// One bilinear sample: four corner offsets in a plane and their weights (all 0 outside).
struct Sample {
  std::int64_t pos[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
};

Sample sample_at(float y, float x, std::int64_t H, std::int64_t W) {
  Sample s;
  if (y < -1.0f || y > float(H) || x < -1.0f || x > float(W)) return s;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  auto y_low = std::int64_t(y), x_low = std::int64_t(x), y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= H - 1) y_high = y_low = H - 1, y = float(y_low);
  if (x_low >= W - 1) x_high = x_low = W - 1, x = float(x_low);
  const float ly = y - float(y_low), lx = x - float(x_low), hy = 1.0f - ly, hx = 1.0f - lx;
  s.pos[0] = y_low * W + x_low, s.pos[1] = y_low * W + x_high, s.pos[2] = y_high * W + x_low;
  s.pos[3] = y_high * W + x_high;
  s.w[0] = hy * hx, s.w[1] = hy * lx, s.w[2] = ly * hx, s.w[3] = ly * lx;
  return s;
}

struct RoiAlignAttrs {
  bool max_mode = false, half_pixel = true;
  std::int64_t oh = 1, ow = 1, ratio = 0;
  float scale = 1.0f;
};

RoiAlignAttrs roi_align_attrs(const OpCall& call) {
  call.only_attrs({"mode", "output_height", "output_width", "sampling_ratio", "spatial_scale",
                   "coordinate_transformation_mode"});
  const Node& n = call.node;
  RoiAlignAttrs a;
  const std::string mode = n.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") call.fail("mode '" + mode + "' is not an ONNX RoiAlign mode (avg, max)");
  a.max_mode = mode == "max";
  const std::string ctm = n.attr_string("coordinate_transformation_mode", call.graph.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    call.fail("coordinate_transformation_mode '" + ctm + "' is not an ONNX RoiAlign mode (half_pixel, output_half_pixel)");
  a.half_pixel = ctm == "half_pixel";
  a.oh = n.attr_int("output_height", 1), a.ow = n.attr_int("output_width", 1), a.ratio = n.attr_int("sampling_ratio", 0);
  a.scale = n.attr_float("spatial_scale", 1.0f);
  if (a.oh < 1 || a.ow < 1 || a.ratio < 0)
    call.fail("output_height and output_width must be >= 1 and sampling_ratio >= 0 (they are " + std::to_string(a.oh) +
              ", " + std::to_string(a.ow) + ", " + std::to_string(a.ratio) + ")");
  return a;
}

// One RoI over one batch image's C planes: out[c, oh, ow].
void align_one(const RoiAlignAttrs& a, const float* roi, const float* img, std::int64_t C, std::int64_t H,
               std::int64_t W, float* out) {
  const float off = a.half_pixel ? 0.5f : 0.0f;
  const float sw = roi[0] * a.scale - off, sh = roi[1] * a.scale - off;
  const float ew = roi[2] * a.scale - off, eh = roi[3] * a.scale - off;
  float rw = ew - sw, rh = eh - sh;
  if (!a.half_pixel) rw = std::max(rw, 1.0f), rh = std::max(rh, 1.0f);
  const float bh = rh / float(a.oh), bw = rw / float(a.ow);
  const std::int64_t gh = a.ratio > 0 ? a.ratio : std::int64_t(std::ceil(rh / float(a.oh)));
  const std::int64_t gw = a.ratio > 0 ? a.ratio : std::int64_t(std::ceil(rw / float(a.ow)));
  const float count = float(std::max<std::int64_t>(gh * gw, 1));
  std::vector<Sample> samples;
  for (std::int64_t ph = 0; ph < a.oh; ++ph)
    for (std::int64_t pw = 0; pw < a.ow; ++pw)
      for (std::int64_t iy = 0; iy < gh; ++iy) {
        const float yy = sh + float(ph) * bh + float(iy + 0.5f) * bh / float(gh);
        for (std::int64_t ix = 0; ix < gw; ++ix)
          samples.push_back(sample_at(yy, sw + float(pw) * bw + float(ix + 0.5f) * bw / float(gw), H, W));
      }
  const std::size_t per_bin = std::size_t(gh * gw);
  for (std::int64_t c = 0; c < C; ++c) {
    const float* p = img + c * H * W;
    for (std::int64_t bin = 0; bin < a.oh * a.ow; ++bin) {
      float acc = 0;
      for (std::size_t k = 0; k < per_bin; ++k) {
        const Sample& s = samples[std::size_t(bin) * per_bin + k];
        if (!a.max_mode) {
          acc += s.w[0] * p[s.pos[0]] + s.w[1] * p[s.pos[1]] + s.w[2] * p[s.pos[2]] + s.w[3] * p[s.pos[3]];
          continue;
        }
        const float v = std::max(std::max(std::max(s.w[0] * p[s.pos[0]], s.w[1] * p[s.pos[1]]), s.w[2] * p[s.pos[2]]),
                                 s.w[3] * p[s.pos[3]]);
        acc = k == 0 ? v : std::max(acc, v);
      }
      out[c * a.oh * a.ow + bin] = a.max_mode ? acc : acc / count;
    }
  }
}

void roi_align(OpCall& call) {
  const RoiAlignAttrs a = roi_align_attrs(call);
  const RefTensor& x = call.fin(0);
  const RefTensor& rois = call.fin(1);
  const RefTensor* idx = call.opt(2);
  if (!idx || idx->is_float()) call.fail("batch_indices (input 2) must be an int64 tensor [num_rois]");
  if (x.shape.size() != 4) call.fail("X must be N x C x H x W, it is " + shape_str(x.shape));
  const std::int64_t R = rois.shape.size() == 2 ? rois.shape[0] : -1;
  if (R < 0 || rois.shape[1] != 4) call.fail("rois must be [num_rois, 4], it is " + shape_str(rois.shape));
  if (idx->shape != std::vector<std::int64_t>{R})
    call.fail("batch_indices must be [" + std::to_string(R) + "] (one per RoI), it is " + shape_str(idx->shape));
  const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  RefTensor y = RefTensor::zeros({R, C, a.oh, a.ow});
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t b = idx->i[std::size_t(r)];
    if (b < 0 || b >= N)
      call.fail("batch_indices[" + std::to_string(r) + "] = " + std::to_string(b) + " is outside [0, " +
                std::to_string(N) + ")");
    align_one(a, rois.f.data() + r * 4, x.f.data() + b * C * H * W, C, H, W, y.f.data() + r * C * a.oh * a.ow);
  }
  call.out[0] = std::move(y);
}

}  // namespace

void add_roi_ops(std::map<std::string, OpKernel>& t) {
  t["NonMaxSuppression"] = non_max_suppression;
  t["RoiAlign"] = roi_align;
}

}  // namespace npu::compiler::reference
