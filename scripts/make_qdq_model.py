#!/usr/bin/env python3
"""Writes tests/data/qdq_conv.onnx: a small QDQ-quantised CNN in the form ONNX Runtime's
quantiser writes (QuantizeLinear/DequantizeLinear around the activations, int8 weights with
per-channel scales behind a DequantizeLinear, a residual Add), plus a QLinearConv. It seeds
the ONNX fuzz target with the quantised-model paths (fold_qdq) and is a sample for users.
Needs Debian's python3-onnx and python3-numpy; run with /usr/bin/python3."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(20261130)
inits, nodes = [], []


def const(name, array):
    inits.append(numpy_helper.from_array(array, name))
    return name


def qdq(x, scale, out):
    s = const(out + ".s", np.array(scale, np.float32))
    z = const(out + ".z", np.array(0, np.int8))
    nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [out + ".q"]))
    nodes.append(helper.make_node("DequantizeLinear", [out + ".q", s, z], [out]))
    return out


def conv(x, name, cin, cout, k, relu):
    w = const(name + ".w_q", rng.integers(-127, 128, size=(cout, cin, k, k)).astype(np.int8))
    ws = const(name + ".w_s", (rng.random(cout) * 0.02 + 0.005).astype(np.float32))
    wz = const(name + ".w_z", np.zeros(cout, np.int8))
    nodes.append(helper.make_node("DequantizeLinear", [w, ws, wz], [name + ".weight"], axis=0))
    b = const(name + ".bias", (rng.standard_normal(cout) * 0.1).astype(np.float32))
    nodes.append(helper.make_node("Conv", [x, name + ".weight", b], [name + ".out"], kernel_shape=[k, k],
                                  pads=[k // 2] * 4))
    y = name + ".out"
    if relu:
        nodes.append(helper.make_node("Relu", [y], [name + ".relu"]))
        y = name + ".relu"
    return qdq(y, 0.05, name + ".act")


x = qdq("input", 0.02, "input.dq")
a = conv(x, "conv1", 3, 8, 3, True)
b = conv(a, "conv2", 8, 8, 3, False)
nodes.append(helper.make_node("Add", [a, b], ["add.out"]))
s = qdq("add.out", 0.05, "add.act")
# A QLinearConv (uint8 activations) reading the quantised sum.
xs, xz = const("ql.x_s", np.array(0.05, np.float32)), const("ql.x_z", np.array(128, np.uint8))
nodes.append(helper.make_node("QuantizeLinear", [s, xs, xz], ["ql.x_q"]))
wq = const("ql.w_q", rng.integers(-127, 128, size=(4, 8, 1, 1)).astype(np.int8))
wsc = const("ql.w_s", np.full(4, 0.01, np.float32))
wzp = const("ql.w_z", np.zeros(4, np.int8))
ys, yz = const("ql.y_s", np.array(0.1, np.float32)), const("ql.y_z", np.array(128, np.uint8))
bq = const("ql.b_q", np.array([100, -50, 0, 25], np.int32))
nodes.append(helper.make_node("QLinearConv", ["ql.x_q", xs, xz, wq, wsc, wzp, ys, yz, bq], ["ql.y_q"],
                              kernel_shape=[1, 1]))
nodes.append(helper.make_node("DequantizeLinear", ["ql.y_q", ys, yz], ["output"]))

graph = helper.make_graph(nodes, "qdq_conv", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 16, 16])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="npu-sim make_qdq_model.py")
onnx.checker.check_model(model)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "qdq_conv.onnx")
onnx.save(model, out)
print("wrote", os.path.normpath(out))
