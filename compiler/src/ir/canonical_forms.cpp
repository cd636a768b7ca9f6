// Canonical IR forms of opset-dependent ops (canonical_forms.hpp).
#include "npu/compiler/ir/canonical_forms.hpp"

#include <cfloat>

#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

const Tensor* const_tensor(const Graph& g, const std::string& name) {
  auto it = g.tensors.find(name);
  return it != g.tensors.end() && it->second.is_constant ? &it->second : nullptr;
}

/// PRelu(x, slope) with a constant slope of one value v (any shape that broadcasts to x) is
/// x >= 0 ? x : v x (ONNX Operators.md, PRelu), which is LeakyRelu(alpha = v).
void canonicalise_uniform_prelu(const Graph& g, Node& n) {
  if (n.inputs.size() != 2) return;
  const Tensor* slope = const_tensor(g, n.inputs[1]);
  if (!slope || slope->float_data.empty() || !slope->int_data.empty()) return;
  for (float v : slope->float_data)
    if (!(v == slope->float_data.front())) return;  // per-channel slopes (or a NaN): stays PRelu
  n.op_type = "LeakyRelu";
  n.attrs["alpha"] = slope->float_data.front();
  n.inputs.resize(1);
}

}  // namespace

void canonicalise_node(const Graph& g, Node& n, const std::string& where) {
  auto input = [&](std::size_t i) -> std::string { return i < n.inputs.size() ? n.inputs[i] : std::string(); };
  const std::int64_t opset = g.opset;
  if (n.op_type == "Clip") {
    if (opset >= 11 && n.inputs.size() > 1) {
      for (std::size_t i = 1; i <= 2; ++i)
        if (!input(i).empty() && !const_tensor(g, input(i))) return;  // computed bound: not yet
      for (std::size_t i = 1; i <= 2; ++i) {
        if (input(i).empty()) continue;
        const Tensor& t = *const_tensor(g, input(i));
        if (t.float_data.size() + t.int_data.size() != 1)
          throw ConfigError(where + ": Clip bound '" + input(i) + "' must be a scalar");
        n.attrs[i == 1 ? "min" : "max"] = t.float_data.empty() ? static_cast<float>(t.int_data[0]) : t.float_data[0];
      }
      n.inputs.resize(1);
    }
    n.attrs.emplace("min", -FLT_MAX);
    n.attrs.emplace("max", FLT_MAX);
  } else if (n.op_type == "Split") {
    if (!input(1).empty()) {
      const Tensor* t = const_tensor(g, input(1));
      if (!t) return;
      n.attrs["split"] = t->int_data;
    }
    if (n.inputs.size() > 1) n.inputs.resize(1);
  } else if (n.op_type == "Upsample") {
    // Upsample (deprecated at opset 10) == Resize with asymmetric coordinates, floor.
    std::vector<float> scales;
    if (!input(1).empty()) {
      const Tensor* t = const_tensor(g, input(1));
      if (!t) return;
      scales = t->float_data;
    } else if (const auto* s = n.has_attr("scales") ? std::get_if<std::vector<float>>(&n.attrs.at("scales")) : nullptr) {
      scales = *s;
    }
    const std::string mode = n.attr_string("mode", "nearest");
    n.op_type = "Resize";
    n.attrs.clear();
    n.attrs["scales"] = scales;
    n.attrs["mode"] = mode;
    n.attrs["coordinate_transformation_mode"] = std::string("asymmetric");
    n.attrs["nearest_mode"] = std::string("floor");
    n.inputs.resize(1);
    n.onnx_proto.clear();  // no longer the file's node
  } else if (n.op_type == "Resize") {
    // opset 10: (X, scales); opset 11+: (X, roi, scales, sizes).
    if (n.inputs.size() > 1) {
      const std::string scales = opset < 11 ? input(1) : input(2);
      const std::string sizes = opset < 11 ? std::string() : input(3);
      const Tensor* ts = scales.empty() ? nullptr : const_tensor(g, scales);
      const Tensor* tz = sizes.empty() ? nullptr : const_tensor(g, sizes);
      if ((!scales.empty() && !ts) || (!sizes.empty() && !tz)) return;  // computed: not yet
      if (ts && !ts->float_data.empty()) n.attrs["scales"] = ts->float_data;
      if (tz && !tz->int_data.empty()) n.attrs["sizes"] = tz->int_data;
      n.inputs.resize(1);
    }
    n.attrs.emplace("mode", std::string("nearest"));
    n.attrs.emplace("coordinate_transformation_mode", std::string(opset < 11 ? "asymmetric" : "half_pixel"));
    n.attrs.emplace("nearest_mode", std::string(opset < 11 ? "floor" : "round_prefer_floor"));
    if (n.attr_string("coordinate_transformation_mode", "") == "tf_crop_and_resize")
      throw ConfigError(where +
                        ": coordinate_transformation_mode 'tf_crop_and_resize' (a region of interest) is "
                        "not supported; use another mode");
  } else if (n.op_type == "Softmax") {
    n.attrs.emplace("axis", std::int64_t{opset < 13 ? 1 : -1});
  } else if (n.op_type == "PRelu") {
    canonicalise_uniform_prelu(g, n);
  }
}

}  // namespace npu::compiler
