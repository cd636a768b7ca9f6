// ONNX's own per-node shape inference (onnx_node_inference.hpp).
#include "npu/compiler/frontend/onnx/onnx_node_inference.hpp"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <set>
#include <unordered_map>

#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

int onnx_elem_type(ElemType t) {
  switch (t) {
    case ElemType::Float32: return onnx::TensorProto_DataType_FLOAT;
    case ElemType::Float16: return onnx::TensorProto_DataType_FLOAT16;
    case ElemType::Int64: return onnx::TensorProto_DataType_INT64;
    case ElemType::Int32: return onnx::TensorProto_DataType_INT32;
    case ElemType::Int8: return onnx::TensorProto_DataType_INT8;
    case ElemType::Uint8: return onnx::TensorProto_DataType_UINT8;
    case ElemType::Bool: return onnx::TensorProto_DataType_BOOL;
  }
  return onnx::TensorProto_DataType_FLOAT;
}

// Constants up to this many elements travel as initializers (their values matter to
// data-dependent rules); bigger float constants (weights) only as typed, shaped inputs.
constexpr std::int64_t kMaxFloatInitializer = 4096;

void add_initializer(onnx::GraphProto& gp, const Tensor& t) {
  onnx::TensorProto* tp = gp.add_initializer();
  tp->set_name(t.name);
  tp->set_data_type(onnx_elem_type(t.type));
  for (auto d : t.shape) tp->add_dims(d);
  if (t.type == ElemType::Float32 || t.type == ElemType::Float16) {
    tp->set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (float v : t.float_data) tp->add_float_data(v);
  } else if (t.type == ElemType::Int64) {
    for (auto v : t.int_data) tp->add_int64_data(v);
  } else {
    for (auto v : t.int_data) tp->add_int32_data(static_cast<std::int32_t>(v));
  }
}

void add_value_info(onnx::ValueInfoProto* vi, const Tensor& t) {
  vi->set_name(t.name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_elem_type(t.type));
  auto* shape = tt->mutable_shape();
  for (auto d : t.shape) shape->add_dim()->set_dim_value(d);
}

}  // namespace

ElemType ir_elem_type(int t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT16: return ElemType::Float16;
    case onnx::TensorProto_DataType_INT64: return ElemType::Int64;
    case onnx::TensorProto_DataType_INT32: return ElemType::Int32;
    case onnx::TensorProto_DataType_INT8: return ElemType::Int8;
    case onnx::TensorProto_DataType_UINT8: return ElemType::Uint8;
    case onnx::TensorProto_DataType_BOOL: return ElemType::Bool;
    default: return ElemType::Float32;
  }
}

bool onnx_has_schema(const std::string& op_type, std::int64_t opset) {
  const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(opset));
  return s != nullptr && !s->Deprecated();
}

bool onnx_infer_node(Graph& graph, std::size_t index, const std::string& source) {
  Node& n = graph.nodes.at(index);
  auto fail = [&](const std::string& reason, const std::string& fix) {
    throw ConfigError(source + ": error: node #" + std::to_string(index) + " '" + n.name + "' (" + n.op_type +
                      "): " + reason + "; " + fix);
  };
  if (n.onnx_proto.empty())
    fail("no shape rule for this op and no ONNX form to ask ONNX's shape inference",
         "this is a compiler bug for nodes built by a pass: report it");
  if (!onnx_has_schema(n.op_type, graph.opset))
    fail("ONNX has no schema for op '" + n.op_type + "' at opset " + std::to_string(graph.opset),
         "the op is not a standard ONNX op (a custom or framework-specific op): replace it or re-export "
         "the model with standard ops");

  onnx::GraphProto gp;
  gp.set_name("node");
  onnx::NodeProto* np = gp.add_node();
  if (!np->ParseFromString(n.onnx_proto))
    fail("its stored ONNX form cannot be parsed", "this is a compiler bug: report it");
  std::set<std::string> seen;
  for (const std::string& in : np->input()) {
    if (in.empty() || !seen.insert(in).second) continue;
    if (!graph.has_tensor(in)) fail("input '" + in + "' is not in the graph", "the model is corrupt: re-export it");
    const Tensor& t = graph.tensor(in);
    if (!t.shape_known())
      fail("input '" + in + "' has no static shape yet", "give the model input a static shape (--input-shape)");
    const bool small_float = (t.type == ElemType::Float32 || t.type == ElemType::Float16) &&
                             t.elements() <= kMaxFloatInitializer;
    if (t.is_constant && (t.type != ElemType::Float32 && t.type != ElemType::Float16 ? true : small_float))
      add_initializer(gp, t);
    else
      add_value_info(gp.add_input(), t);
  }
  std::unordered_map<std::string, int> opsets{{"", static_cast<int>(graph.opset)}};
  try {
    onnx::shape_inference::InferShapes(&gp, opsets, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 1, true));
  } catch (const std::exception& e) {
    fail(std::string("ONNX shape inference failed: ") + e.what(),
         "the model's shapes are inconsistent: re-export it, or check --input-shape overrides");
  }
  bool all_static = true;
  std::map<std::string, const onnx::ValueInfoProto*> inferred;
  for (const auto& vi : gp.value_info()) inferred[vi.name()] = &vi;
  for (const std::string& out : n.outputs) {
    if (out.empty()) continue;
    auto it = inferred.find(out);
    const onnx::TypeProto* type = it != inferred.end() ? &it->second->type() : nullptr;
    if (type && (type->has_sequence_type() || type->has_map_type() || type->has_optional_type()))
      fail("output '" + out + "' is a " +
               (type->has_sequence_type() ? "sequence" : type->has_map_type() ? "map" : "optional") + ", not a tensor: npu-sim compiles tensor graphs only (sequence ops such as SequenceEmpty, "
               "SequenceInsert and ConcatFromSequence have no NPU or host model)",
           "re-export with the list of tensors written as a Concat of tensors (e.g. torch.cat instead of a Python "
           "list built in a loop), or remove the node");
    if (it == inferred.end() || !it->second->type().has_tensor_type() ||
        !it->second->type().tensor_type().has_shape())
      fail("ONNX shape inference gives no shape for output '" + out + "'",
           "the op's output shape depends on run-time data; the compiler needs static shapes");
    const auto& tt = it->second->type().tensor_type();
    std::vector<std::int64_t> shape;
    bool bounded = false;
    for (const auto& d : tt.shape().dim()) {
      const bool known = d.has_dim_value() && d.dim_value() >= 0;
      if (!known && graph.dynamic_size > 0) {
        shape.push_back(graph.dynamic_size);  // the user's worst case (--dynamic-size)
        bounded = true;
        continue;
      }
      all_static = all_static && known;
      shape.push_back(known ? d.dim_value() : -1);
    }
    if (bounded) graph.bounded_tensors.insert(out);
    Tensor& t = graph.tensors[out];
    t.name = out;
    t.shape = std::move(shape);
    t.type = ir_elem_type(tt.elem_type());
  }
  return all_static;
}

}  // namespace npu::compiler
