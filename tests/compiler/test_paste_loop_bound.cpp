// Mask R-CNN's paste-masks Loop under --dynamic-size (issue 28 kind 8; frontend/onnx/paste_loop.hpp,
// backend/lowering/paste_loop_ops.cpp). A hand-built Loop of torchvision's structure
// (`_onnx_paste_masks_in_image_loop`): per trip, Gather mask i and box i from the enclosing graph,
// a bilinear Resize of the mask to a size computed from the box, ConstantOfShape zeros padded
// around it by Concats to the H x W canvas, and the canvas appended to the carried accumulator
// (Concat along axis 0, v0 = zeros [0, H, W]). With --dynamic-size it is one NPU layer costed at
// M full-canvas pastes; without, it stays on the host with today's reason; other bodies stay too.
#include <gtest/gtest.h>

#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "test_compile_graphs.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;

constexpr std::int64_t kTrips = 3, kMask = 4, kH = 8, kW = 8;

onnx::NodeProto& body_node(onnx::GraphProto& b, const std::string& op, std::vector<std::string> in,
                           std::vector<std::string> out) {
  auto* n = b.add_node();
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return *n;
}

void typed(onnx::ValueInfoProto* vi, const std::string& name, int elem, std::vector<std::int64_t> dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* s = tt->mutable_shape();
  for (auto d : dims) d >= 0 ? s->add_dim()->set_dim_value(d) : void(s->add_dim()->set_dim_param("n"));
}

// The body: m = Unsqueeze(Gather(masks, i)) [1, 1, 4, 4]; b = Gather(boxes_i64, i) [4];
// sizes = [1, 1, b[2], b[3]] (the box's height and width); r = Resize(m, sizes) linear -> [h, w]
// after a Reshape; zeros [H - h, w] under it (Concat axis 0), zeros [H, W - w] right of it
// (Concat axis 1): the canvas, Unsqueezed and appended. `mode` is the Resize's; `pad` false
// replaces the zero padding by a plain Reshape (not a paste).
void paste_body(onnx::GraphProto& b, const std::string& mode, bool pad) {
  b.set_name("paste_body");
  typed(b.add_input(), "i", onnx::TensorProto_DataType_INT64, {});
  typed(b.add_input(), "c", onnx::TensorProto_DataType_BOOL, {});
  typed(b.add_input(), "acc", onnx::TensorProto_DataType_FLOAT, {-1, kH, kW});
  OnnxModel::fill_int64(*b.add_initializer(), "ax0", {1}, {0}, false);
  OnnxModel::fill_int64(*b.add_initializer(), "one1", {2}, {1, 1}, false);
  OnnxModel::fill_int64(*b.add_initializer(), "hw_at", {1}, {2}, false);
  OnnxModel::fill_int64(*b.add_initializer(), "hw_end", {1}, {4}, false);
  OnnxModel::fill_int64(*b.add_initializer(), "canvas", {2}, {kH, kW}, false);
  body_node(b, "Gather", {"masks", "i"}, {"m3"});
  body_node(b, "Unsqueeze", {"m3", "ax0"}, {"m4"});
  body_node(b, "Gather", {"boxes_i64", "i"}, {"box"});
  body_node(b, "Slice", {"box", "hw_at", "hw_end"}, {"hw"});
  OnnxModel::attr_i(body_node(b, "Concat", {"one1", "hw"}, {"sizes"}), "axis", 0);
  OnnxModel::attr_s(body_node(b, "Resize", {"m4", "", "", "sizes"}, {"r4"}), "mode", mode);
  body_node(b, "Reshape", {"r4", "hw"}, {"r"});
  if (pad) {
    body_node(b, "Sub", {"canvas", "hw"}, {"rest"});  // [H - h, W - w]
    OnnxModel::fill_int64(*b.add_initializer(), "i0", {1}, {0}, false);
    OnnxModel::fill_int64(*b.add_initializer(), "i1", {1}, {1}, false);
    body_node(b, "Gather", {"rest", "i0"}, {"dh"});
    body_node(b, "Gather", {"hw", "i1"}, {"w"});
    OnnxModel::attr_i(body_node(b, "Concat", {"dh", "w"}, {"zy_shape"}), "axis", 0);
    body_node(b, "ConstantOfShape", {"zy_shape"}, {"zy"});
    OnnxModel::attr_i(body_node(b, "Concat", {"r", "zy"}, {"col"}), "axis", 0);
    body_node(b, "Gather", {"rest", "i1"}, {"dw"});
    body_node(b, "Gather", {"canvas", "i0"}, {"hh"});
    OnnxModel::attr_i(body_node(b, "Concat", {"hh", "dw"}, {"zx_shape"}), "axis", 0);
    body_node(b, "ConstantOfShape", {"zx_shape"}, {"zx"});
    OnnxModel::attr_i(body_node(b, "Concat", {"col", "zx"}, {"pasted"}), "axis", 1);
  } else {
    body_node(b, "Reshape", {"r", "canvas"}, {"pasted"});
  }
  body_node(b, "Unsqueeze", {"pasted", "ax0"}, {"pasted3"});
  OnnxModel::attr_i(body_node(b, "Concat", {"acc", "pasted3"}, {"acc_out"}), "axis", 0);
  body_node(b, "Identity", {"c"}, {"c_out"});
  typed(b.add_output(), "c_out", onnx::TensorProto_DataType_BOOL, {});
  typed(b.add_output(), "acc_out", onnx::TensorProto_DataType_FLOAT, {-1, kH, kW});
}

// Graph inputs x [3, 1, 4, 4] (mask logits), bx [3, 4] (boxes), s [3] (scores). The kept
// detections are data-dependent, as after the export's NMS: keep = Squeeze(NonZero(s)) [n];
// masks = Sigmoid(Gather(Relu(x), keep)) [n, 1, 4, 4] and boxes_i64 = Cast(Gather(bx, keep)) [n, 4] are
// computed tensors the body reads without listing them (as the export reads '/Pad_output_0' and
// '/Cast_8_output_0'); the trip count is Shape(masks)[0]. Loop(M, cond = true, v0 = [0, 8, 8]) -> y.
// Under --dynamic-size 3, n = 3 and M folds to 3; without it everything after NonZero is unsized.
std::string paste_model(const std::string& file, const std::string& mode = "linear", bool pad = true) {
  OnnxModel m(13);
  m.input("x", {kTrips, 1, kMask, kMask});
  m.input("bx", {kTrips, 4});
  m.input("s", {kTrips});
  m.init_int64("axes0", {1}, {0});
  m.init_int64("zero", {}, {0});
  m.node("NonZero", "nonzero", {"s"}, {"nz"});
  m.node("Squeeze", "squeeze", {"nz", "axes0"}, {"keep"});
  m.node("Relu", "relu", {"x"}, {"xr"});  // an NPU layer with or without the bound
  OnnxModel::attr_i(m.node("Gather", "gather_x", {"xr", "keep"}, {"xk"}), "axis", 0);
  m.node("Sigmoid", "sigmoid", {"xk"}, {"masks"});
  OnnxModel::attr_i(m.node("Gather", "gather_b", {"bx", "keep"}, {"bk"}), "axis", 0);
  OnnxModel::attr_i(m.node("Cast", "cast", {"bk"}, {"boxes_i64"}), "to", 7);
  m.node("Shape", "shape", {"masks"}, {"sh"});
  OnnxModel::attr_i(m.node("Gather", "trips", {"sh", "zero"}, {"M"}), "axis", 0);
  auto* cond = m.graph().add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto_DataType_BOOL);
  cond->add_int32_data(1);
  m.init_float("v0", {0, kH, kW}, {});
  auto& loop = m.node("Loop", "paste", {"M", "cond", "v0"}, {"y"});
  auto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  paste_body(*a->mutable_g(), mode, pad);
  m.output("y");
  return m.write(file);
}

HwConfig fp32_hw() {
  HwConfig hw = testing::edge_like_hw();
  hw.mac_array.dtype = DType::Fp32;
  return hw;
}

CompileResult compile_paste(const std::string& file, std::int64_t dynamic_size) {
  LoadOptions o;
  o.dynamic_size = dynamic_size;
  return compile(load_model(file, o), fp32_hw(), builtin_strategy("none"));
}

const LayerReport* paste_row(const CompileResult& r, const std::string& layer) {
  for (const auto& l : r.report.layers)
    if (l.layer == layer) return &l;
  return nullptr;
}

TEST(PasteLoopBound, WithDynamicSizeTheLoopIsOneNpuLayerCostedAtItsBound) {
  const CompileResult r = compile_paste(paste_model("paste_loop.onnx"), kTrips);
  // Only the NonZero stays on the host (its Squeeze is a view feeding NPU Gathers).
  ASSERT_EQ(r.lowered.host_nodes.size(), 1u);
  EXPECT_EQ(r.lowered.host_nodes[0].op_type, "NonZero");
  EXPECT_EQ(r.graph.tensor("y").shape, (std::vector<std::int64_t>{kTrips, kH, kW}));
  const LayerReport* L = paste_row(r, "paste");
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->placement, "npu");
  // fp32, 4 B an element. Each trip reads one mask (1 x 4 x 4 = 16 elements) and one box (4)
  // and writes one 8 x 8 canvas (64): 3 x (16 + 4) x 4 = 240 B read, 3 x 64 x 4 = 768 B written.
  EXPECT_EQ(L->planned_read_bytes, 3u * (16 + 4) * 4);
  EXPECT_EQ(L->planned_write_bytes, 3u * 64 * 4);
  EXPECT_NE(L->note.find("--dynamic-size bound: 3 pastes of a full 8 x 8 canvas"), std::string::npos) << L->note;
  // Six vector passes of the blend over the 3 x 64 canvas elements: 6 x 192 ACT elements.
  std::uint64_t act_elems = 0;
  for (const auto& ins : r.program.instructions)
    if (ins.layer == "paste" && ins.op == isa::Opcode::Act) act_elems += std::get<isa::ActParams>(ins.params).elems;
  EXPECT_EQ(act_elems, 6u * 3 * 64);
  // --explain says so too (infer-shapes sized the Loop for the bound).
  bool explained = false;
  for (const Decision& d : r.decisions)
    explained = explained || (d.label == "paste" && d.verb == "bounded" &&
                              d.reason.find("3 pastes of a full 8 x 8 canvas") != std::string::npos);
  EXPECT_TRUE(explained);
}

TEST(PasteLoopBound, ARunWithDataRefusesTheBoundedLoop) {
  const CompileResult r = compile_paste(paste_model("paste_loop_data.onnx"), kTrips);
  bool said = false;
  for (const std::string& p : functional_problems(r))
    said = said || (p.find("layer 'paste' (Loop)") != std::string::npos && p.find("not computed") != std::string::npos);
  EXPECT_TRUE(said);
}

TEST(PasteLoopBound, WithoutDynamicSizeTheLoopStaysOnTheHostWithTodaysReason) {
  // The trip count is unsized (Shape of the NonZero-sized masks): "data-dependent shape", as before.
  const CompileResult r = compile_paste(paste_model("paste_loop_nobound.onnx"), 0);
  const HostNode* loop = nullptr;
  for (const auto& h : r.lowered.host_nodes)
    if (h.name == "paste") loop = &h;
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->reason.rfind("data-dependent shape", 0), 0u) << loop->reason;
}

TEST(PasteLoopBound, OtherBodiesStayOnTheHost) {
  // A nearest Resize, or no zero padding (not a paste): the Loop keeps today's host reason.
  for (const auto& [mode, pad] : {std::pair<std::string, bool>{"nearest", true}, {"linear", false}}) {
    const CompileResult r = compile_paste(paste_model("paste_loop_other.onnx", mode, pad), kTrips);
    ASSERT_EQ(r.lowered.host_nodes.size(), 2u) << mode << pad;  // the NonZero and the Loop
    EXPECT_EQ(r.lowered.host_nodes[1].op_type, "Loop");
    EXPECT_NE(r.lowered.host_nodes[1].reason.find("its subgraph reads 'masks', 'boxes_i64'"), std::string::npos)
        << r.lowered.host_nodes[1].reason;
  }
}

}  // namespace
}  // namespace npu::compiler
