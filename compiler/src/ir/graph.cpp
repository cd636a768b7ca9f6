// Graph IR helpers (graph.hpp): element sizes, tensor element counts, typed attribute
// access and producer/consumer look-ups.
#include "npu/compiler/ir/graph.hpp"
#include "npu/base/checked_math.hpp"
#include "npu/base/user_text.hpp"

#include <stdexcept>

#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

int elem_bytes(ElemType t) {
  switch (t) {
    case ElemType::Float32: return 4;
    case ElemType::Float16: return 2;
    case ElemType::Int64: return 8;
    case ElemType::Int32: return 4;
    case ElemType::Int8: return 1;
    case ElemType::Uint8: return 1;
    case ElemType::Bool: return 1;
  }
  return 1;
}

std::int64_t Tensor::elements() const {
  std::int64_t n = 1;
  bool overflow = false;
  for (std::int64_t d : shape) {
    if (d < 0) return -1;
    overflow = __builtin_mul_overflow(n, d, &n) || overflow;
  }
  if (overflow) {
    std::string dims;
    for (std::int64_t d : shape) dims += (dims.empty() ? "" : " x ") + std::to_string(d);
    throw ConfigError("error: tensor '" + echo(name) + "' of shape " + dims + " has more elements than " +
                      describe_limit(std::uint64_t(kI64Max)) + "; give the model's inputs real sizes");
  }
  return n;
}

bool Tensor::shape_known() const {
  for (std::int64_t d : shape)
    if (d < 0) return false;
  return true;
}

namespace {

const char* kind_of(const AttrValue& v) {
  switch (v.index()) {
    case 0: return "an int";
    case 1: return "a float";
    case 2: return "a string";
    case 3: return "a list of ints";
    case 4: return "a list of floats";
  }
  return "?";
}

[[noreturn]] void wrong_kind(const Node& n, const std::string& key, const AttrValue& v,
                             const char* expected) {
  throw ConfigError("node '" + n.name + "' (" + n.op_type + "): attribute '" + key + "' is " +
                    kind_of(v) + ", expected " + expected +
                    "; fix the attribute in the model (ONNX operator spec gives its type)");
}

}  // namespace

std::int64_t Node::attr_int(const std::string& key, std::int64_t fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<std::int64_t>(&it->second)) return *v;
  wrong_kind(*this, key, it->second, "an int");
}

float Node::attr_float(const std::string& key, float fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<float>(&it->second)) return *v;
  // Integers are accepted where a float is expected (some exporters write alpha=1 as int).
  if (const auto* v = std::get_if<std::int64_t>(&it->second)) return static_cast<float>(*v);
  wrong_kind(*this, key, it->second, "a float");
}

std::string Node::attr_string(const std::string& key, const std::string& fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<std::string>(&it->second)) return *v;
  wrong_kind(*this, key, it->second, "a string");
}

std::vector<std::int64_t> Node::attr_ints(const std::string& key,
                                          std::vector<std::int64_t> fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<std::vector<std::int64_t>>(&it->second)) return *v;
  if (const auto* v = std::get_if<std::int64_t>(&it->second)) return {*v};
  wrong_kind(*this, key, it->second, "a list of ints");
}

Tensor& Graph::tensor(const std::string& name) {
  auto it = tensors.find(name);
  if (it == tensors.end())
    throw std::out_of_range("graph '" + this->name + "' has no tensor '" + name + "'");
  return it->second;
}

const Tensor& Graph::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end())
    throw std::out_of_range("graph '" + this->name + "' has no tensor '" + name + "'");
  return it->second;
}

std::vector<std::size_t> Graph::consumers(const std::string& tensor_name) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : nodes[i].inputs) {
      if (in == tensor_name) {
        out.push_back(i);
        break;  // a node reading the same tensor twice (x * x) is one consumer
      }
    }
  }
  return out;
}

std::optional<std::size_t> Graph::producer(const std::string& tensor_name) const {
  if (tensor_name.empty()) return std::nullopt;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (const std::string& o : nodes[i].outputs)
      if (o == tensor_name) return i;
  return std::nullopt;
}

}  // namespace npu::compiler
