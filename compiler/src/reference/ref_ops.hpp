// The reference interpreter's op table (reference_interpreter.hpp): ONNX op type -> kernel.
// One file per op family registers its kernels; adding an op means adding a kernel to a
// family file (or a new family file and one line in op_table.cpp), never a branch in the
// interpreter loop. Internal to the compiler library.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"

namespace npu::compiler::reference {

/// One node's execution: its inputs (nullptr for an absent optional input), room for its
/// outputs (one per Node::outputs entry, empty until the kernel fills them), the thread
/// budget, and a way to fail that names the node.
struct OpCall {
  const Graph& graph;
  const Node& node;
  std::size_t index;  ///< position of the node in graph.nodes, for messages
  std::vector<const RefTensor*> in;
  std::vector<RefTensor>& out;
  int threads = 1;

  /// Throws npu::ConfigError "SOURCE: error: node #I 'NAME' (OP): WHY".
  [[noreturn]] void fail(const std::string& why) const;
  /// Input `k`, which must be present and float (fails naming it otherwise).
  const RefTensor& fin(std::size_t k) const;
  /// Input `k` or nullptr when absent.
  const RefTensor* opt(std::size_t k) const { return k < in.size() ? in[k] : nullptr; }
  /// Input `k` as a list of integers (a constant shape/axes/pads tensor); fails if absent.
  std::vector<std::int64_t> ints(std::size_t k) const;
  /// Fails when the node carries an attribute outside `allowed` (the op's ONNX attributes):
  /// an unknown attribute (e.g. an exporter's `activation` on a Conv) may change what the node
  /// computes, so it is refused, never ignored.
  void only_attrs(std::initializer_list<const char*> allowed) const;
  /// True when the node has output `k` (a non-empty name).
  bool wants(std::size_t k) const { return k < node.outputs.size() && !node.outputs[k].empty(); }
};

using OpKernel = void (*)(OpCall& call);

// Op families (each in its own file); each adds its kernels to the table.
void add_conv_ops(std::map<std::string, OpKernel>& t);         // conv_ops.cpp
void add_matmul_ops(std::map<std::string, OpKernel>& t);       // matmul_ops.cpp
void add_norm_ops(std::map<std::string, OpKernel>& t);         // norm_ops.cpp
void add_elementwise_ops(std::map<std::string, OpKernel>& t);  // elementwise_ops.cpp
void add_activation_ops(std::map<std::string, OpKernel>& t);   // activation_ops.cpp
void add_pool_ops(std::map<std::string, OpKernel>& t);         // pool_ops.cpp
void add_reduce_ops(std::map<std::string, OpKernel>& t);       // reduce_ops.cpp
void add_layout_ops(std::map<std::string, OpKernel>& t);       // layout_ops.cpp
void add_resize_ops(std::map<std::string, OpKernel>& t);       // resize_ops.cpp
void add_detection_ops(std::map<std::string, OpKernel>& t);    // detection_ops.cpp: NonZero, TopK, GridSample
void add_roi_ops(std::map<std::string, OpKernel>& t);          // roi_ops.cpp: NonMaxSuppression, RoiAlign
void add_index_ops(std::map<std::string, OpKernel>& t);        // index_ops.cpp: GatherND, ScatterElements

/// Op type -> kernel for every family above.
const std::map<std::string, OpKernel>& op_table();

// Helpers shared by the families (op_table.cpp).

/// Row-major strides of `shape` in elements.
std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape);
/// Product of shape[from, to).
std::int64_t span(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to);
/// `axis` (may be negative, ONNX style) made non-negative for a tensor of `rank`; fails
/// through `call` when out of range.
std::size_t norm_axis(const OpCall& call, std::int64_t axis, std::size_t rank);
/// "1x3x224x224" ("scalar" for rank 0).
std::string shape_str(const std::vector<std::int64_t>& shape);
/// Runs f(begin, end) over [0, n) split into at most `threads` contiguous chunks (one
/// std::thread each beyond the first); sequential when threads <= 1 or n is small.
void parallel_for(int threads, std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& f);

}  // namespace npu::compiler::reference

namespace npu::compiler::reference {

/// Sliding-window geometry of Conv / ConvTranspose / MaxPool / AveragePool over the spatial
/// dims (1, 2 or 3 of them: [D,] [H,] W; a 1-D window is a 2-D one with height 1, a 2-D one a
/// 3-D one with depth 1), from the node's attributes with the ONNX defaults (strides 1,
/// dilations 1, pads 0, auto_pad NOTSET). Depth: pad_f before the first slice, pad_k after the
/// last.
struct Window {
  std::int64_t in_h = 1, in_w = 1, k_h = 1, k_w = 1, s_h = 1, s_w = 1, d_h = 1, d_w = 1;
  std::int64_t pad_t = 0, pad_l = 0, pad_b = 0, pad_r = 0;
  std::int64_t out_h = 1, out_w = 1;
  std::int64_t in_d = 1, k_d = 1, s_d = 1, d_d = 1, pad_f = 0, pad_k = 0, out_d = 1;
};
/// `spatial` = the input's spatial dims, `kernel` = the kernel's (weight dims 2.. for Conv,
/// kernel_shape for pools). Output size per ONNX: floor((in + pads - d*(k-1) - 1)/s) + 1, or
/// ceil with ceil_mode, where a last window starting past the input and begin padding is
/// dropped (PyTorch and ONNX Runtime). auto_pad SAME_UPPER/SAME_LOWER/VALID resolved as the
/// spec says. Fails for rank > 3 spatial dims or a window that does not fit.
Window window_of(const OpCall& call, const std::vector<std::int64_t>& spatial, const std::vector<std::int64_t>& kernel,
                 bool allow_ceil);

}  // namespace npu::compiler::reference
