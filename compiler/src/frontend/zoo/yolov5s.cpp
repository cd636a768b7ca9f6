// YOLOv5s, v6.0 architecture as in ultralytics/yolov5 tag v7.0 (models/yolov5s.yaml:
// depth_multiple 0.33, width_multiple 0.50; models/common.py Conv, Bottleneck, C3, SPPF;
// models/yolo.py Detect), nc=80, 3 anchors per level, 640x640 input, node names of the
// torch.onnx export made with Detect.export=True (one output [1, 25200, 85], box decode in
// the graph). Conv = Conv2d(no bias) + BatchNorm2d(eps 1e-3, momentum 0.03) + SiLU, SiLU
// exported as Sigmoid + Mul. Published totals (the v7.0 model summary): 7,235,389 params,
// 16.5 GFLOPs at 640 (= 8.2 G MACs).
#include <array>
#include <cmath>

#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "frontend/zoo/zoo_builder.hpp"

namespace npu::compiler {

namespace {

using zoo_detail::ZooBuilder;

using Ints = std::vector<std::int64_t>;

/// models/common.py Conv: conv -> bn -> act (SiLU = x * sigmoid(x)); pad = autopad(k) = k // 2
/// unless the yaml gives one (layer 0: Conv(3, 32, 6, 2, 2)).
std::string conv(ZooBuilder& b, const std::string& m, const std::string& x, std::int64_t c2,
                 std::int64_t k, std::int64_t s, std::int64_t p = -1) {
  std::string y = b.conv(m + ".conv", x, c2, k, s, p < 0 ? k / 2 : p);
  y = b.batchnorm(m + ".bn", y, 1e-3f, 0.97f);  // ONNX momentum = 1 - 0.03
  const std::string act = b.scope(m + ".act");
  const std::string sig = b.add1("Sigmoid", act + "/Sigmoid", {y});
  return b.add1("Mul", act + "/Mul", {y, sig});
}

/// C3: cv3(cat(m(cv1(x)), cv2(x))), m = n Bottlenecks(c_, c_, shortcut, e=1.0).
std::string c3(ZooBuilder& b, const std::string& m, const std::string& x, std::int64_t c2,
               int n, bool shortcut) {
  const std::int64_t c_ = c2 / 2;
  std::string y = conv(b, m + ".cv1", x, c_, 1, 1);
  for (int i = 0; i < n; ++i) {
    const std::string bm = m + ".m." + std::to_string(i);
    std::string z = conv(b, bm + ".cv1", y, c_, 1, 1);
    z = conv(b, bm + ".cv2", z, c_, 3, 1);
    y = shortcut ? b.add1("Add", b.scope(bm) + "/Add", {y, z}) : z;
  }
  const std::string y2 = conv(b, m + ".cv2", x, c_, 1, 1);
  const std::string cat = b.add1("Concat", b.scope(m) + "/Concat", {y, y2}, {{"axis", std::int64_t{1}}});
  return conv(b, m + ".cv3", cat, c2, 1, 1);
}

/// SPPF(k=5): y0 = cv1(x); y1..y3 = maxpool applied three times; cv2(cat(y0..y3)).
std::string sppf(ZooBuilder& b, const std::string& m, const std::string& x, std::int64_t c2) {
  const std::string y0 = conv(b, m + ".cv1", x, b.channels(x) / 2, 1, 1);
  std::vector<std::string> ys{y0};
  const std::string s = b.scope(m);
  for (const char* name : {"/m", "/m_1", "/m_2"})
    ys.push_back(b.add1("MaxPool", s + name + "/MaxPool", {ys.back()},
                        {{"ceil_mode", std::int64_t{0}},
                         {"kernel_shape", Ints{5, 5}},
                         {"pads", Ints{2, 2, 2, 2}},
                         {"strides", Ints{1, 1}}}));
  const std::string cat = b.add1("Concat", s + "/Concat", ys, {{"axis", std::int64_t{1}}});
  return conv(b, m + ".cv2", cat, c2, 1, 1);
}

std::string upsample(ZooBuilder& b, const std::string& m, const std::string& x) {
  // nn.Upsample(None, 2, 'nearest') exports as Resize(asymmetric, floor) with constant scales.
  return b.add1("Resize", b.scope(m) + "/Resize", {x},
                {{"coordinate_transformation_mode", std::string("asymmetric")},
                 {"cubic_coeff_a", -0.75f},
                 {"mode", std::string("nearest")},
                 {"nearest_mode", std::string("floor")},
                 {"scales", std::vector<float>{1.0f, 1.0f, 2.0f, 2.0f}}});
}

std::string concat(ZooBuilder& b, const std::string& m, const std::vector<std::string>& xs) {
  return b.add1("Concat", b.scope(m) + "/Concat", xs, {{"axis", std::int64_t{1}}});
}

std::string numbered(const std::string& base, int i) {
  return i == 0 ? base : base + "_" + std::to_string(i);
}

// The three feature maps Detect reads, P3/8, P4/16 and P5/32: the backbone and the PAN head
// (layers 0-23).
std::array<std::string, 3> backbone_and_head(ZooBuilder& b, const std::string& x) {
  // Backbone (yolov5s.yaml, channels x 0.5, repeats x 0.33 rounded, at least 1).
  std::string l0 = conv(b, "model.0", x, 32, 6, 2, 2);     // P1/2, 6x6 s2 p2
  std::string l1 = conv(b, "model.1", l0, 64, 3, 2);       // P2/4
  std::string l2 = c3(b, "model.2", l1, 64, 1, true);
  std::string l3 = conv(b, "model.3", l2, 128, 3, 2);      // P3/8
  std::string l4 = c3(b, "model.4", l3, 128, 2, true);
  std::string l5 = conv(b, "model.5", l4, 256, 3, 2);      // P4/16
  std::string l6 = c3(b, "model.6", l5, 256, 3, true);
  std::string l7 = conv(b, "model.7", l6, 512, 3, 2);      // P5/32
  std::string l8 = c3(b, "model.8", l7, 512, 1, true);
  std::string l9 = sppf(b, "model.9", l8, 512);
  // PAN head.
  std::string l10 = conv(b, "model.10", l9, 256, 1, 1);
  std::string l11 = upsample(b, "model.11", l10);
  std::string l12 = concat(b, "model.12", {l11, l6});
  std::string l13 = c3(b, "model.13", l12, 256, 1, false);
  std::string l14 = conv(b, "model.14", l13, 128, 1, 1);
  std::string l15 = upsample(b, "model.15", l14);
  std::string l16 = concat(b, "model.16", {l15, l4});
  std::string l17 = c3(b, "model.17", l16, 128, 1, false);  // P3/8 out
  std::string l18 = conv(b, "model.18", l17, 128, 3, 2);
  std::string l19 = concat(b, "model.19", {l18, l14});
  std::string l20 = c3(b, "model.20", l19, 256, 1, false);  // P4/16 out
  std::string l21 = conv(b, "model.21", l20, 256, 3, 2);
  std::string l22 = concat(b, "model.22", {l21, l10});
  std::string l23 = c3(b, "model.23", l22, 512, 1, false);  // P5/32 out
  return {l17, l20, l23};
}

// Detect (yolov5s.yaml): na = 3 anchors per level, no = nc + 5 = 85 values per anchor.
constexpr std::int64_t kAnchorsPerLevel = 3, kValuesPerAnchor = 85;
constexpr std::int64_t kStrides[3] = {8, 16, 32};
constexpr float kAnchors[3][6] = {{10, 13, 16, 30, 33, 23},        // P3/8  (yolov5s.yaml)
                                  {30, 61, 62, 45, 59, 119},       // P4/16
                                  {116, 90, 156, 198, 373, 326}};  // P5/32

// Detect level `i`'s decode constants: grid = stack(xv, yv) - 0.5, anchor_grid = anchors
// (pixels), both [1, na, ny, nx, 2].
void detect_grids(int i, std::int64_t ny, std::int64_t nx, std::vector<float>& grid, std::vector<float>& anchor_grid) {
  const std::int64_t na = kAnchorsPerLevel;
  grid.reserve(static_cast<std::size_t>(na * ny * nx * 2));
  anchor_grid.reserve(grid.capacity());
  for (std::int64_t a = 0; a < na; ++a)
    for (std::int64_t gy = 0; gy < ny; ++gy)
      for (std::int64_t gx = 0; gx < nx; ++gx) {
        grid.push_back(static_cast<float>(gx) - 0.5f);
        grid.push_back(static_cast<float>(gy) - 0.5f);
        anchor_grid.push_back(kAnchors[i][2 * a]);
        anchor_grid.push_back(kAnchors[i][2 * a + 1]);
      }
}

// Detect level `i` on feature map `feat` (ny x nx cells) in its export form, [bs, na*ny*nx, no]
// (see zoo_yolov5s); `cname` names the next constant of the exporter's numbering.
template <typename ConstantName>
std::string detect_level(ZooBuilder& b, int i, const std::string& feat, std::int64_t bs, std::int64_t ny,
                         std::int64_t nx, ConstantName&& cname) {
  const std::int64_t na = kAnchorsPerLevel, no = kValuesPerAnchor;
  const std::string d = "/model.24";
  // Detect.m is a ModuleList indexed in forward(), so the exporter opens no "/m" scope.
  const std::string m = "m." + std::to_string(i);
  std::string y = b.conv("model.24." + m, feat, na * no, 1, 1, 0, 1, true, d + "/" + m);
  y = b.add1("Reshape", numbered(d + "/Reshape", 2 * i),
             {y, b.constant_ints(cname(), {5}, {bs, na, no, ny, nx})});
  y = b.add1("Transpose", numbered(d + "/Transpose", i), {y}, {{"perm", Ints{0, 1, 3, 4, 2}}});
  y = b.add1("Sigmoid", numbered(d + "/Sigmoid", i), {y});
  const auto parts = b.add("Split", numbered(d + "/Split", i), {y},
                           {{"axis", std::int64_t{4}}, {"split", Ints{2, 2, no - 4}}}, 3);
  std::vector<float> grid, anchor_grid;
  detect_grids(i, ny, nx, grid, anchor_grid);
  const Ints grid_shape{1, na, ny, nx, 2};
  std::string xy = b.add1("Mul", numbered(d + "/Mul", 4 * i), {parts[0], b.constant(cname(), {}, {2.0f})});
  xy = b.add1("Add", numbered(d + "/Add", i), {xy, b.constant(cname(), grid_shape, std::move(grid))});
  xy = b.add1("Mul", numbered(d + "/Mul", 4 * i + 1),
              {xy, b.constant(cname(), {}, {static_cast<float>(kStrides[i])})});
  std::string wh = b.add1("Mul", numbered(d + "/Mul", 4 * i + 2), {parts[1], b.constant(cname(), {}, {2.0f})});
  wh = b.add1("Pow", numbered(d + "/Pow", i), {wh, b.constant(cname(), {}, {2.0f})});
  wh = b.add1("Mul", numbered(d + "/Mul", 4 * i + 3),
              {wh, b.constant(cname(), grid_shape, std::move(anchor_grid))});
  y = b.add1("Concat", numbered(d + "/Concat", i), {xy, wh, parts[2]}, {{"axis", std::int64_t{4}}});
  return b.add1("Reshape", numbered(d + "/Reshape", 2 * i + 1),
                {y, b.constant_ints(cname(), {3}, {bs, na * ny * nx, no})});
}

}  // namespace

Graph zoo_yolov5s(const ZooOptions& o) {
  const std::int64_t h = o.height ? o.height : 640, w = o.width ? o.width : 640;
  if (h % 32 != 0 || w % 32 != 0)
    throw ConfigError("yolov5s: error: input " + std::to_string(h) + "x" + std::to_string(w) +
                      " is not a multiple of the largest stride 32; use e.g. --input-shape "
                      "input=1x3x640x640");
  ZooBuilder b("yolov5s");
  b.strip_scope("model");
  const std::int64_t bs = o.batch;
  std::string x = b.input("input", {bs, 3, h, w});
  const std::array<std::string, 3> feats = backbone_and_head(b, x);

  // Detect: per level a 1x1 conv to na*(nc+5) = 255 channels, then (export form)
  // view(bs,na,no,ny,nx).permute(0,1,3,4,2).sigmoid(); xy,wh,conf = split((2,2,81), 4);
  // xy = (xy*2 + grid)*stride; wh = (wh*2)**2 * anchor_grid; cat; view(bs, na*ny*nx, no).
  const std::string d = "/model.24";
  int constant_index = 0;
  auto cname = [&]() { return numbered(d + "/Constant", constant_index++) + "_output_0"; };
  std::vector<std::string> levels;
  for (int i = 0; i < 3; ++i)
    levels.push_back(detect_level(b, i, feats[i], bs, h / kStrides[i], w / kStrides[i], cname));
  std::string out = b.add1("Concat", d + "/Concat_3", levels, {{"axis", std::int64_t{1}}});
  b.rename_output(out, "output");
  return b.finish({"output"});
}

}  // namespace npu::compiler
