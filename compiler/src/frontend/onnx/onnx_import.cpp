// ONNX front-end (onnx_import.hpp). Reference: the ONNX IR spec (onnx/docs/IR.md) and
// operator spec (onnx/docs/Operators.md, Changelog.md for the per-opset differences).
#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/base/user_text.hpp"

#include <fcntl.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontend/onnx/onnx_subgraph.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/ir/canonical_forms.hpp"
#include "npu/compiler/frontend/onnx/onnx_node_inference.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

namespace fs = std::filesystem;

struct Importer {
  std::string source;   // file name for messages
  fs::path base_dir;    // for external tensor data
  std::int64_t opset = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError(source + ": error: " + what);
  }

  static float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    float v;
    if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);          // subnormal
    else if (exp == 31) v = mant ? NAN : INFINITY;                          // inf / nan
    else v = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -v : v;
  }

  /// Bytes of a tensor stored outside the model file (data_location = EXTERNAL).
  std::string external_bytes(const onnx::TensorProto& t) const {
    std::string location;
    std::int64_t offset = 0, length = -1;
    auto count = [&](const std::string& key, const std::string& text) {
      std::int64_t v = -1;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size() || v < 0)
        fail("tensor '" + t.name() + "': external data " + key + " '" + text +
             "' is not a non-negative integer; the model is corrupt: re-save it with its external data");
      return v;
    };
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = count("offset", kv.value());
      else if (kv.key() == "length") length = count("length", kv.value());
    }
    // ONNX's checker: the location is relative and stays inside the model's folder (no
    // absolute path, no ".."): a model must not make the tool read arbitrary files.
    const fs::path loc(location);
    bool escapes = loc.is_absolute();
    for (const auto& part : loc) escapes = escapes || part == "..";
    if (escapes)
      fail("tensor '" + t.name() + "' keeps its data in '" + location +
           "', outside the model's folder (absolute or with '..'); external data must be a relative path inside "
           "the folder of the .onnx file: move the data file there and re-save the model");
    const fs::path p = base_dir / location;
    std::error_code ec;
    // The lexical check above does not see symlinks: a link inside the folder may point anywhere.
    // Resolve both (realpath) and require the data file to stay under the model's folder.
    const fs::path real_dir = fs::weakly_canonical(fs::absolute(base_dir.empty() ? fs::path(".") : base_dir, ec), ec);
    const fs::path real_p = fs::weakly_canonical(fs::absolute(p, ec), ec);
    const auto [dir_end, p_it] = std::mismatch(real_dir.begin(), real_dir.end(), real_p.begin(), real_p.end());
    if (!location.empty() && (ec || dir_end != real_dir.end() || p_it == real_p.end()))
      fail("tensor '" + t.name() + "' keeps its data in '" + location + "', which resolves to '" + real_p.string() +
           "', outside the model's folder '" + real_dir.string() +
           "' (through a symbolic link); external data must be a file inside the folder of the .onnx file: copy the "
           "data file there (not a link to it) and re-save the model");
    // A folder (or device) opens as a stream too, with a meaningless size: refuse it first.
    if (!location.empty() && fs::exists(p, ec) && !fs::is_regular_file(p, ec))
      fail("tensor '" + t.name() + "' keeps its data in external file '" + p.string() +
           "', which is not a regular file; put the data file beside the model or save the model with "
           "all tensors inside (onnx.save_model(m, path, save_as_external_data=False))");
    std::ifstream f(p, std::ios::binary);
    if (location.empty() || !f)
      fail("tensor '" + t.name() + "' keeps its data in external file '" + p.string() +
           "', which cannot be opened; put that file beside the model or save the model with "
           "all tensors inside (onnx.save_model(m, path, save_as_external_data=False))");
    f.seekg(0, std::ios::end);
    const std::int64_t size = f.tellg();
    if (length < 0) length = size - offset;
    // Compared without forming offset + length, which may overflow int64.
    if (size < 0 || offset > size || length < 0 || length > size - offset)
      fail("tensor '" + t.name() + "': external data range [" + std::to_string(offset) + ", " +
           std::to_string(std::uint64_t(offset) + std::uint64_t(length)) + ") lies outside '" + p.string() + "' (" +
           std::to_string(size) + " bytes); the external data file does not belong to this model");
    std::string bytes(static_cast<std::size_t>(length), '\0');
    f.seekg(offset);
    f.read(bytes.data(), length);
    return bytes;
  }

  // Fails unless constant `name` holds as many values (`got`) as its shape has elements (`n`).
  void check_count(const std::string& name, std::size_t got, std::int64_t n) const {
    if (static_cast<std::int64_t>(got) != n)
      fail("constant tensor '" + name + "' holds " + std::to_string(got) +
           " values but its shape has " + std::to_string(n) +
           " elements; the file is corrupt, re-export it");
  }

  // Calls store(v) for each of the `n` values of type T in `raw` (ONNX raw_data:
  // little-endian), after checking their count.
  template <typename T, typename Store>
  void raw_as(const std::string& raw, std::int64_t n, const std::string& name, Store&& store) const {
    if (raw.size() % sizeof(T) != 0) check_count(name, raw.size() / sizeof(T) + 1, n);
    check_count(name, raw.size() / sizeof(T), n);
    for (std::int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));  // ONNX raw_data: little-endian
      store(v);
    }
  }

  // Sets out.shape from constant `t`'s dims and returns its element count.
  std::int64_t convert_shape(const onnx::TensorProto& t, const std::string& name, Tensor& out) const {
    std::int64_t n = 1;  // the element count, checked: Tensor::elements() would overflow (UB)
    for (auto d : t.dims()) {
      if (d < 0) fail("constant tensor '" + name + "' has a negative dimension");
      if (__builtin_mul_overflow(n, d, &n))
        fail("constant tensor '" + name + "' has dimensions whose product overflows a 64-bit element count; "
             "the file is corrupt, re-export it");
      out.shape.push_back(d);
    }
    return n;
  }

  // The `n` values of a float, double or float16 constant, from `raw` when `has_raw`, else
  // from the typed fields; kept as float32 (float16 marked as such).
  void convert_float_values(const onnx::TensorProto& t, const std::string& raw, bool has_raw, std::int64_t n,
                            Tensor& out) const {
    const std::string& name = out.name;
    switch (t.data_type()) {
      case onnx::TensorProto_DataType_FLOAT:
        out.type = ElemType::Float32;
        if (has_raw) {
          check_count(name, raw.size() / 4, n);
          if (raw.size() % 4) check_count(name, raw.size() / 4 + 1, n);
          out.float_data.resize(static_cast<std::size_t>(n));
          if (n > 0) std::memcpy(out.float_data.data(), raw.data(), static_cast<std::size_t>(n) * 4);
        } else {
          check_count(name, static_cast<std::size_t>(t.float_data_size()), n);
          out.float_data.assign(t.float_data().begin(), t.float_data().end());
        }
        break;
      case onnx::TensorProto_DataType_DOUBLE:
        out.type = ElemType::Float32;  // the IR keeps float constants as float32
        out.float_data.reserve(static_cast<std::size_t>(n));
        if (has_raw) raw_as<double>(raw, n, name, [&](double v) { out.float_data.push_back(static_cast<float>(v)); });
        else {
          check_count(name, static_cast<std::size_t>(t.double_data_size()), n);
          for (double v : t.double_data()) out.float_data.push_back(static_cast<float>(v));
        }
        break;
      default:  // FLOAT16
        out.type = ElemType::Float16;
        out.float_data.reserve(static_cast<std::size_t>(n));
        if (has_raw)
          raw_as<std::uint16_t>(raw, n, name, [&](std::uint16_t v) { out.float_data.push_back(half_to_float(v)); });
        else {  // float16 bits are stored in int32_data
          check_count(name, static_cast<std::size_t>(t.int32_data_size()), n);
          for (auto v : t.int32_data()) out.float_data.push_back(half_to_float(static_cast<std::uint16_t>(v)));
        }
        break;
    }
  }

  // The `n` values of an int64, int32, int8, uint8 or bool constant, from `raw` when
  // `has_raw`, else from the typed fields.
  void convert_int_values(const onnx::TensorProto& t, const std::string& raw, bool has_raw, std::int64_t n,
                          Tensor& out) const {
    const std::string& name = out.name;
    const auto dt = t.data_type();
    if (dt == onnx::TensorProto_DataType_INT64) {
      out.type = ElemType::Int64;
      if (has_raw) raw_as<std::int64_t>(raw, n, name, [&](std::int64_t v) { out.int_data.push_back(v); });
      else {
        check_count(name, static_cast<std::size_t>(t.int64_data_size()), n);
        out.int_data.assign(t.int64_data().begin(), t.int64_data().end());
      }
      return;
    }
    out.type = dt == onnx::TensorProto_DataType_INT32  ? ElemType::Int32
               : dt == onnx::TensorProto_DataType_INT8 ? ElemType::Int8
               : dt == onnx::TensorProto_DataType_UINT8 ? ElemType::Uint8
                                                         : ElemType::Bool;
    if (has_raw) {
      if (dt == onnx::TensorProto_DataType_INT32)
        raw_as<std::int32_t>(raw, n, name, [&](std::int32_t v) { out.int_data.push_back(v); });
      else if (dt == onnx::TensorProto_DataType_INT8)
        raw_as<std::int8_t>(raw, n, name, [&](std::int8_t v) { out.int_data.push_back(v); });
      else
        raw_as<std::uint8_t>(raw, n, name, [&](std::uint8_t v) { out.int_data.push_back(v); });
    } else {  // all of these are stored in int32_data
      check_count(name, static_cast<std::size_t>(t.int32_data_size()), n);
      out.int_data.assign(t.int32_data().begin(), t.int32_data().end());
    }
  }

  Tensor convert_tensor(const onnx::TensorProto& t, const std::string& name) const {
    Tensor out;
    out.name = name;
    out.is_constant = true;
    const std::int64_t n = convert_shape(t, name, out);
    const bool external = t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
    const std::string ext = external ? external_bytes(t) : std::string();
    const std::string& raw = external ? ext : t.raw_data();
    const bool has_raw = external || t.has_raw_data();
    switch (t.data_type()) {
      case onnx::TensorProto_DataType_FLOAT:
      case onnx::TensorProto_DataType_DOUBLE:
      case onnx::TensorProto_DataType_FLOAT16:
        convert_float_values(t, raw, has_raw, n, out);
        break;
      case onnx::TensorProto_DataType_INT64:
      case onnx::TensorProto_DataType_INT32:
      case onnx::TensorProto_DataType_INT8:
      case onnx::TensorProto_DataType_UINT8:
      case onnx::TensorProto_DataType_BOOL:
        convert_int_values(t, raw, has_raw, n, out);
        break;
      default:
        fail("constant tensor '" + name + "' has ONNX data type " +
             std::to_string(t.data_type()) +
             ", which the compiler does not support (float, float16, double, int64, int32, "
             "int8, uint8, bool); convert the model's constants");
    }
    return out;
  }

  static ElemType elem_type(int onnx_type) { return ir_elem_type(onnx_type); }

  std::string where(const onnx::NodeProto& n, int index) const {
    const std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    return "node #" + std::to_string(index) + " '" + name + "' (" + n.op_type() + ")";
  }

  void convert_attrs(const onnx::NodeProto& np, int index, Node& node) const {
    for (const auto& a : np.attribute()) {
      switch (a.type()) {
        case onnx::AttributeProto_AttributeType_INT: node.attrs[a.name()] = std::int64_t{a.i()}; break;
        case onnx::AttributeProto_AttributeType_FLOAT: node.attrs[a.name()] = a.f(); break;
        case onnx::AttributeProto_AttributeType_STRING: node.attrs[a.name()] = a.s(); break;
        case onnx::AttributeProto_AttributeType_INTS:
          node.attrs[a.name()] = std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
          break;
        case onnx::AttributeProto_AttributeType_FLOATS:
          node.attrs[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end());
          break;
        case onnx::AttributeProto_AttributeType_UNDEFINED:
          // IR < 4 files may omit the type tag: take whichever field is set.
          if (a.has_i()) node.attrs[a.name()] = std::int64_t{a.i()};
          else if (a.has_f()) node.attrs[a.name()] = a.f();
          else if (a.has_s()) node.attrs[a.name()] = a.s();
          else if (a.ints_size()) node.attrs[a.name()] = std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
          else if (a.floats_size()) node.attrs[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end());
          else fail(where(np, index) + ": attribute '" + a.name() + "' has no value; re-export the model");
          break;
        case onnx::AttributeProto_AttributeType_TENSOR: {
          // e.g. ConstantOfShape's value: kept as a float or int list (its type follows).
          const Tensor t = convert_tensor(a.t(), np.name() + "." + a.name());
          if (t.type == ElemType::Float32 || t.type == ElemType::Float16) node.attrs[a.name()] = t.float_data;
          else node.attrs[a.name()] = t.int_data;
          if (t.type != ElemType::Float32) node.attrs[a.name() + "_type"] = std::int64_t(t.type);
          break;
        }
        default:
          // Graphs (If/Loop bodies), strings, sparse tensors: kept only in the node's ONNX
          // form (Node::onnx_proto) for ONNX's shape inference; no lowering reads them.
          node.attrs["_onnx_attr_" + a.name()] = std::int64_t(a.type());
          break;
      }
    }
  }

  /// Constant node -> constant tensor (value, value_float(s), value_int(s); opsets 9..17).
  Tensor constant_tensor(const onnx::NodeProto& np, int index) const {
    if (np.output_size() != 1) fail(where(np, index) + ": a Constant must have one output");
    const std::string& name = np.output(0);
    for (const auto& a : np.attribute()) {
      Tensor t;
      t.name = name;
      t.is_constant = true;
      if (a.name() == "value") return convert_tensor(a.t(), name);
      if (a.name() == "value_float") { t.float_data = {a.f()}; return t; }
      if (a.name() == "value_floats") {
        t.float_data.assign(a.floats().begin(), a.floats().end());
        t.shape = {static_cast<std::int64_t>(t.float_data.size())};
        return t;
      }
      if (a.name() == "value_int") { t.type = ElemType::Int64; t.int_data = {a.i()}; return t; }
      if (a.name() == "value_ints") {
        t.type = ElemType::Int64;
        t.int_data.assign(a.ints().begin(), a.ints().end());
        t.shape = {static_cast<std::int64_t>(t.int_data.size())};
        return t;
      }
    }
    fail(where(np, index) +
         ": only value, value_float(s) and value_int(s) Constants are supported (no sparse or "
         "string constants); fold the constant with onnx-simplifier");
  }

  /// Every op that is neither a standard ONNX op at the model's opset nor one the compiler
  /// knows, with its nodes (all at once, so one run shows the whole list).
  [[noreturn]] void unsupported(const std::map<std::string, std::vector<std::string>>& unknown) const {
    std::string list;
    std::size_t nodes = 0;
    for (const auto& [op, where_list] : unknown) {
      nodes += where_list.size();
      list += "\n  " + op + " (" + std::to_string(where_list.size()) + " node" + (where_list.size() > 1 ? "s" : "") + "): ";
      for (std::size_t i = 0; i < where_list.size() && i < 5; ++i) list += (i ? ", " : "") + where_list[i];
      if (where_list.size() > 5) list += ", ...";
    }
    fail(std::to_string(unknown.size()) + " unsupported op type" + (unknown.size() > 1 ? "s" : "") + " in " +
         std::to_string(nodes) + " node" + (nodes > 1 ? "s" : "") +
         ": not standard ONNX ops at opset " + std::to_string(opset) +
         " (custom domains and deprecated ops have no shape rule); replace them with standard ops or "
         "re-export the model:" + list);
  }

  /// The model's ai.onnx opset (1 when it imports none, as the IR spec says). Fails outside
  /// kMinOnnxOpset..kMaxOnnxOpset.
  void read_opset(const onnx::ModelProto& m) {
    bool found_opset = false;
    for (const auto& o : m.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") {
        opset = o.version();
        found_opset = true;
      }
    }
    if (!found_opset)  // IR spec: a missing default-domain import means opset 1
      fail("model imports no ai.onnx opset (no opset_import entry for the default domain), which the ONNX IR spec "
           "reads as opset 1, and the importer supports " + std::to_string(kMinOnnxOpset) + " to " +
           std::to_string(kMaxOnnxOpset) + ". Exporters write opset_import after the graph, so a file cut short "
           "loses it: re-export or re-download the model; a real opset-1 model needs converting "
           "(onnx.version_converter.convert_version(model, 13))");
    if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset)
      fail("model uses ai.onnx opset " + std::to_string(opset) + "; the importer supports " +
           std::to_string(kMinOnnxOpset) + " to " + std::to_string(kMaxOnnxOpset) +
           ": convert it (onnx.version_converter.convert_version(model, 13)) or re-export "
           "with opset_version=13");
  }

  /// A graph input (not an initializer) as a tensor: unknown dimensions are -1, and `params`
  /// receives each dimension's symbolic name ("" when known). Fails for a STRING, non-tensor,
  /// zero-size or over-2^31 input.
  Tensor graph_input(const onnx::ValueInfoProto& vi, std::vector<std::string>& params) const {
    Tensor t;
    t.name = vi.name();
    if (!vi.type().has_tensor_type())
      fail("graph input '" + vi.name() + "' is not a tensor; the compiler reads tensor inputs only");
    const auto& tt = vi.type().tensor_type();
    if (tt.elem_type() == onnx::TensorProto_DataType_STRING)
      fail("graph input '" + echo(vi.name()) +
           "' has element type STRING; the NPU computes on numbers only (tokenise text on the host and feed "
           "the token ids as an int64 input)");
    t.type = elem_type(tt.elem_type());
    if (!tt.has_shape()) {
      t.shape = {-1};  // rank unknown: only an --input-shape override can fix it
      params = {"(rank unknown)"};
      return t;
    }
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() == 0)
        fail("graph input '" + vi.name() + "' has a zero-size dimension " + std::to_string(t.shape.size()) +
             "; the compiler does not handle empty tensors: give the input a real size");
      if (d.has_dim_value() && d.dim_value() < 0)
        fail("graph input '" + echo(vi.name()) + "' dimension " + std::to_string(t.shape.size()) + " is " +
             std::to_string(d.dim_value()) +
             ": negative, which is invalid (an ONNX dim_value is a size >= 1; a dimension known only at run time "
             "has a dim_param name or no value, not a negative value): the file is corrupt, re-export it with a "
             "real size (or override it with --input-shape)");
      if (d.has_dim_value() && d.dim_value() > (std::int64_t(1) << 31))
        fail("graph input '" + echo(vi.name()) + "' dimension " + std::to_string(t.shape.size()) + " is " +
             std::to_string(d.dim_value()) +
             ", out of range: at most 2147483648 (2^31), so that element and byte counts stay within 64 bits; "
             "give the input a real size (or override it with --input-shape)");
      const bool known = d.has_dim_value() && d.dim_value() > 0;
      t.shape.push_back(known ? d.dim_value() : -1);
      params.push_back(known ? "" : (d.has_dim_param() ? d.dim_param() : "?"));
    }
    return t;
  }

  /// Records the shape graph output `vo` declares, if any, in `inf.declared_outputs` (-1 for
  /// a dimension without a value). Fails for a negative dim_value.
  void declared_output(const onnx::ValueInfoProto& vo, OnnxModelInfo& inf) const {
    if (!vo.type().has_tensor_type() || !vo.type().tensor_type().has_shape()) return;
    std::vector<std::int64_t> shape;
    for (const auto& d : vo.type().tensor_type().shape().dim()) {
      if (d.has_dim_value() && d.dim_value() < 0)
        fail("graph output '" + echo(vo.name()) + "' declares dimension " + std::to_string(shape.size()) + " as " +
             std::to_string(d.dim_value()) +
             ": negative, which is invalid (an ONNX dim_value is a size >= 0; a dimension known only at run time "
             "has a dim_param name or no value): the file is corrupt, re-export it");
      shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
    }
    inf.declared_outputs[vo.name()] = std::move(shape);
  }

  /// ONNX graphs are SSA: every tensor has one producer. A second writer would silently
  /// replace the first one's result (and confuse the topological order), so reject it.
  void check_single_producers(const std::vector<const onnx::NodeProto*>& order, const Graph& g) const {
    std::map<std::string, int> writer;
    for (int i = 0; i < int(order.size()); ++i) {
      for (const std::string& out : order[std::size_t(i)]->output()) {
        if (out.empty()) continue;
        if (g.tensors.count(out))
          fail(where(*order[std::size_t(i)], i) + ": writes tensor '" + out +
               "', which is already a graph input or initializer; every tensor must have exactly one "
               "producer: rename the node's output (re-export the model)");
        auto [it, fresh] = writer.emplace(out, i);
        if (!fresh)
          fail(where(*order[std::size_t(i)], i) + ": writes tensor '" + out + "', which " +
               where(*order[std::size_t(it->second)], it->second) +
               " also writes; every tensor must have exactly one producer: rename one of the outputs "
               "(re-export the model)");
      }
    }
  }

  /// The name of node `np` (position `index`): its ONNX name, or "<op>_<index>" when it has none,
  /// with "_<index>" (then "_<index>_<k>") appended until its program spelling (isa_name: any
  /// character outside [A-Za-z0-9_./:+-] becomes '_') is one no earlier node has. Layers, their
  /// int8 scales and the report rows are keyed by that spelling, so "conv 1" beside "conv_1", or
  /// two CJK names of one length, would otherwise share one layer name: wrong int8 data and
  /// report rows filed under another node. `used` holds the spellings taken so far.
  static std::string unique_node_name(const onnx::NodeProto& np, int index, std::set<std::string>& used) {
    const std::string base = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
    std::string name = base;
    for (int k = 0; !used.insert(isa_name(name)).second; ++k)
      name = base + "_" + std::to_string(index) + (k > 0 ? "_" + std::to_string(k) : "");
    return name;
  }

  /// Node `np` (position `index` in topological order) as a canonical IR node with a unique
  /// name; its outputs are declared in `g` with unknown shapes. Attributes the op does not
  /// define at the opset are appended to `unknown_attrs`. Fails for an undefined input.
  Node graph_node(const onnx::NodeProto& np, int index, Graph& g, std::set<std::string>& used_names,
                  std::vector<std::string>& unknown_attrs) const {
    Node n;
    n.name = unique_node_name(np, index, used_names);
    n.op_type = np.op_type();
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    for (const std::string& in : n.inputs)
      if (!in.empty() && !g.tensors.count(in))
        fail(where(np, index) + ": input '" + in +
             "' is not a graph input, an initializer or the output of an earlier node; the "
             "file is truncated or corrupt: re-export it");
    convert_attrs(np, index, n);
    if (const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(np.op_type(), int(opset))) {
      // An attribute the op does not define (e.g. a converter's "activation" on a Conv)
      // would be silently ignored: refuse it, as ONNX's checker does.
      for (const auto& a : np.attribute())
        if (!schema->attributes().count(a.name()))
          unknown_attrs.push_back(where(np, index) + ": attribute '" + a.name() + "'");
    }
    n.onnx_proto = np.SerializeAsString();
    canonicalise_node(g, n, source + ": error: " + where(np, index));
    for (const std::string& out : n.outputs) {
      if (out.empty()) continue;
      Tensor t;
      t.name = out;
      t.shape = {-1};  // set by shape inference
      g.tensors[out] = std::move(t);
    }
    return n;
  }

  /// The nodes, in topological `order`, into `g`: Constants become constant tensors, the rest
  /// IR nodes. Unsupported ops and undefined attributes fail, each all listed at once.
  void convert_nodes(const std::vector<const onnx::NodeProto*>& order, Graph& g, OnnxModelInfo& inf) {
    std::set<std::string> used_names;
    std::map<std::string, std::vector<std::string>> unknown;  // op -> nodes, all reported at once
    std::vector<std::string> unknown_attrs;                   // node: attribute, all at once
    for (std::size_t k = 0; k < order.size(); ++k) {
      const onnx::NodeProto& np = *order[k];
      const int index = static_cast<int>(k);
      const bool default_domain = np.domain().empty() || np.domain() == "ai.onnx";
      if (default_domain && np.op_type() == "Constant") {
        g.tensors[np.output(0)] = constant_tensor(np, index);
        ++inf.constant_nodes;
        continue;
      }
      if (!default_domain || !(is_supported_op(np.op_type()) || np.op_type() == "Upsample" ||
                               onnx_has_schema(np.op_type(), opset))) {
        unknown[(default_domain ? std::string() : np.domain() + "::") + np.op_type()].push_back(where(np, index));
        for (const std::string& out : np.output())
          if (!out.empty()) g.tensors[out].name = out;  // so later readers are not "undefined"
        continue;
      }
      g.nodes.push_back(graph_node(np, index, g, used_names, unknown_attrs));
    }
    if (!unknown.empty()) unsupported(unknown);
    if (!unknown_attrs.empty()) {
      std::string list;
      for (const auto& u : unknown_attrs) list += "\n  " + u;
      fail(std::to_string(unknown_attrs.size()) + " attribute(s) that the ONNX op does not define at opset " +
           std::to_string(opset) + " (they would be ignored, changing what the model computes); remove them or "
           "re-export the model with standard attributes:" + list);
    }
  }

  /// Drop constants nothing reads (Clip/Split/Resize inputs folded into attributes,
  /// training-only initializers).
  static void drop_unread_constants(Graph& g) {
    std::set<std::string> read(g.outputs.begin(), g.outputs.end());
    for (const Node& n : g.nodes) read.insert(n.inputs.begin(), n.inputs.end());
    for (auto it = g.tensors.begin(); it != g.tensors.end();) {
      if (it->second.is_constant && !read.count(it->first)) it = g.tensors.erase(it);
      else ++it;
    }
  }

  Graph convert(const onnx::ModelProto& m, OnnxModelInfo* info) {
    if (m.has_graph() && m.graph().node_size() == 0 && m.graph().output_size() > 0) {
      std::string outs;
      for (const auto& o : m.graph().output()) outs += (outs.empty() ? "'" : ", '") + echo(o.name()) + "'";
      fail("the graph has no nodes: its outputs (" + outs + ") are graph inputs or constants, so there is nothing to "
           "compute; give a model with at least one node");
    }
    if (!m.has_graph() || m.graph().node_size() == 0)
      fail("the file contains no ONNX graph (no nodes); it is not an ONNX model or it is "
           "truncated/corrupt: re-export or re-download it");
    read_opset(m);
    const onnx::GraphProto& gp = m.graph();
    Graph g;
    g.opset = opset;
    g.name = gp.name().empty() ? fs::path(source).stem().string() : gp.name();
    OnnxModelInfo local;
    OnnxModelInfo& inf = info ? *info : local;
    inf = OnnxModelInfo{};
    inf.opset = opset;
    inf.ir_version = m.ir_version();
    inf.producer = m.producer_name() + (m.producer_version().empty() ? "" : " " + m.producer_version());

    for (int i = 0; i < gp.initializer_size(); ++i) {
      const auto& t = gp.initializer(i);
      if (t.name().empty()) fail("an initializer has no name; the file is corrupt");
      if (g.tensors.count(t.name()))
        fail("initializer #" + std::to_string(i) + " '" + echo(t.name()) +
             "' has the name of an earlier initializer; ONNX names are unique (which value would the model use?): "
             "rename or remove one of them (re-export the model)");
      g.tensors[t.name()] = convert_tensor(t, t.name());
    }
    std::set<std::string> input_names;
    for (const auto& vi : gp.input()) {
      if (!input_names.insert(vi.name()).second)
        fail("graph input '" + echo(vi.name()) + "' is listed twice; ONNX names are unique: remove the second "
             "entry (re-export the model)");
      if (g.tensors.count(vi.name())) continue;  // IR < 4 lists initializers as inputs too
      std::vector<std::string> params;
      Tensor t = graph_input(vi, params);
      inf.dim_params[t.name] = params;
      g.inputs.push_back(t.name);
      g.tensors[t.name] = std::move(t);
    }
    for (const auto& vo : gp.output()) {
      g.outputs.push_back(vo.name());
      declared_output(vo, inf);
    }

    std::vector<const onnx::NodeProto*> order;
    for (const auto& np : gp.node()) order.push_back(&np);
    check_single_producers(order, g);
    order = topological(gp, order, g);
    convert_nodes(order, g, inf);
    for (const std::string& out : g.outputs)
      if (!g.tensors.count(out))
        fail("graph output '" + out + "' is produced by no node; the file is truncated or corrupt");
    drop_unread_constants(g);
    return g;
  }

  /// The node order of the file if it is topological (as ONNX requires), otherwise a stable
  /// topological sort (Kahn, lowest file index first). Inputs nothing defines are reported
  /// by convert() at the node that reads them.
  std::vector<const onnx::NodeProto*> topological(const onnx::GraphProto& gp,
                                                  const std::vector<const onnx::NodeProto*>& nodes,
                                                  const Graph& g) const {
    std::map<std::string, std::size_t> producer;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (const auto& o : nodes[i]->output()) producer[o] = i;
    bool sorted = true;
    std::set<std::string> defined;
    for (const auto& [name, t] : g.tensors) defined.insert(name);
    for (const auto* np : nodes) {
      for (const auto& in : np->input())
        if (!in.empty() && !defined.count(in) && producer.count(in)) sorted = false;
      for (const auto& o : np->output()) defined.insert(o);
    }
    if (sorted) return nodes;
    (void)gp;
    std::vector<int> pending(nodes.size(), 0);
    std::vector<std::vector<std::size_t>> users(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      std::set<std::size_t> deps;
      for (const auto& in : nodes[i]->input()) {
        auto p = producer.find(in);
        if (!in.empty() && p != producer.end() && p->second != i) deps.insert(p->second);
      }
      pending[i] = static_cast<int>(deps.size());
      for (std::size_t d : deps) users[d].push_back(i);
    }
    std::set<std::size_t> ready;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (pending[i] == 0) ready.insert(i);
    std::vector<const onnx::NodeProto*> out;
    while (!ready.empty()) {
      const std::size_t i = *ready.begin();
      ready.erase(ready.begin());
      out.push_back(nodes[i]);
      for (std::size_t u : users[i])
        if (--pending[u] == 0) ready.insert(u);
    }
    if (out.size() != nodes.size())
      fail("the graph has a cycle (" + std::to_string(nodes.size() - out.size()) +
           " nodes never become ready); the model is corrupt: re-export it");
    return out;
  }
};

[[noreturn]] void parse_failed(const Importer& imp, std::int64_t size) {
  imp.fail("cannot parse the ONNX protobuf (" + std::to_string(size) +
           " bytes): the file is truncated or corrupt, or not an ONNX model; re-export or "
           "re-download it");
}

}  // namespace

std::vector<std::string> declared_output_warnings(const Graph& g, const OnnxModelInfo& info) {
  std::vector<std::string> out;
  auto text = [](const std::vector<std::int64_t>& s) {
    std::string t;
    for (std::size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
    return s.empty() ? std::string("[] (a scalar)") : t;
  };
  for (const std::string& name : g.outputs) {
    const auto d = info.declared_outputs.find(name);
    const auto t = g.tensors.find(name);
    if (d == info.declared_outputs.end() || t == g.tensors.end()) continue;
    const std::vector<std::int64_t>& want = d->second;
    const std::vector<std::int64_t>& got = t->second.shape;
    bool differs = want.size() != got.size();
    for (std::size_t i = 0; !differs && i < want.size(); ++i) differs = want[i] >= 0 && got[i] >= 0 && want[i] != got[i];
    const bool is_input = std::find(g.inputs.begin(), g.inputs.end(), name) != g.inputs.end();
    if (differs && is_input)  // the output passes an input through: its shape is the input's, not inferred
      out.push_back("graph output '" + echo(name) + "' is the graph input of that name itself, declared as an output "
                    "with shape " + text(want) + " but the input is " + text(got) +
                    "; the file's output declaration is wrong (did you mean another tensor as the output?)");
    else if (differs)
      out.push_back("graph output '" + echo(name) + "' is declared with shape " + text(want) +
                    " but shape inference gives " + text(got) +
                    "; the file's declaration is wrong and every result uses the inferred shape: check the model "
                    "(re-export it, or fix the output's declared shape)");
  }
  return out;
}

Graph import_onnx(const std::string& path, OnnxModelInfo* info) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw ConfigError(path + ": error: no such file; check the path (a built-in model is given "
                      "by name: resnet18, resnet50, mobilenet_v2, yolov5s)");
  if (!fs::is_regular_file(path, ec))
    throw ConfigError(path + ": error: not a regular file; give the path of an .onnx file");
  const auto size = static_cast<std::int64_t>(fs::file_size(path, ec));
  Importer imp{path, fs::path(path).parent_path()};
  if (size == 0)
    imp.fail("the file is empty (0 bytes); it is not an ONNX model: re-export or re-download it");
  if (size > INT32_MAX)
    imp.fail("the file is larger than 2 GiB, the protobuf limit; save the model with external "
             "data (onnx.save_model(m, path, save_as_external_data=True))");
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    imp.fail(std::string("cannot open the file (") + std::strerror(errno) +
             "); check its permissions");
  // Parse straight from the file descriptor: no second 100 MB copy of the file in memory.
  onnx::ModelProto model;
  bool ok;
  {
    google::protobuf::io::FileInputStream stream(fd, 1 << 20);
    ok = model.ParseFromZeroCopyStream(&stream);
  }
  ::close(fd);
  if (!ok) parse_failed(imp, size);
  return imp.convert(model, info);
}

Graph import_onnx_bytes(const std::string& bytes, const std::string& source, OnnxModelInfo* info) {
  Importer imp{source, fs::current_path()};
  if (bytes.empty())
    imp.fail("the model is empty (0 bytes); it is not an ONNX model: re-export it");
  onnx::ModelProto model;
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    parse_failed(imp, static_cast<std::int64_t>(bytes.size()));
  return imp.convert(model, info);
}

Tensor import_tensor_proto(const std::string& bytes, const std::string& source, const std::string& base_dir) {
  Importer imp{source, fs::path(base_dir)};
  onnx::TensorProto t;
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX) || !t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    imp.fail("not a serialized onnx.TensorProto (protobuf cannot parse its " + std::to_string(bytes.size()) +
             " bytes); write tensors with onnx.numpy_helper.from_array(...).SerializeToString()");
  if (t.data_type() == onnx::TensorProto_DataType_UNDEFINED)
    imp.fail("the TensorProto has no data type (0, UNDEFINED): the file is empty or not a tensor; write it with "
             "onnx.numpy_helper.from_array(...).SerializeToString()");
  Tensor out = imp.convert_tensor(t, t.name());
  return out;
}

std::vector<Node> import_subgraph(const onnx::GraphProto& sub, Graph& g, const std::string& source) {
  Importer imp{source, fs::path()};
  imp.opset = g.opset;
  std::vector<Node> nodes;
  for (const auto& t : sub.initializer()) g.tensors[t.name()] = imp.convert_tensor(t, t.name());
  for (int k = 0; k < sub.node_size(); ++k) {
    const onnx::NodeProto& np = sub.node(k);
    if (!(np.domain().empty() || np.domain() == "ai.onnx"))
      imp.fail(imp.where(np, k) + ": an If branch uses op domain '" + np.domain() + "'; only ai.onnx is supported");
    if (np.op_type() == "Constant") {
      g.tensors[np.output(0)] = imp.constant_tensor(np, k);
      continue;
    }
    Node n;
    n.name = np.name().empty() ? np.op_type() + "_if_" + std::to_string(k) : np.name();
    n.op_type = np.op_type();
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    imp.convert_attrs(np, k, n);
    n.onnx_proto = np.SerializeAsString();
    canonicalise_node(g, n, source + ": error: " + imp.where(np, k));
    for (const std::string& out : n.outputs) {
      if (out.empty()) continue;
      Tensor& t = g.tensors[out];
      t.name = out;
      t.shape = {-1};
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

}  // namespace npu::compiler
