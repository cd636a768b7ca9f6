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


# ---------------------------------------------------------------------------------------------
# tests/data/qdq_resnet.onnx: a larger QDQ model as ONNX Runtime's static quantiser writes it,
# for the int8 execution tests (docs/functional.md, "int8 execution"): conv chain with
# BatchNorm folded into the weights, per-channel symmetric int8 weights, int32 biases behind a
# DequantizeLinear (scale s_x * s_w[c]), asymmetric int8 activations calibrated on a seeded
# input, ReLU, MaxPool, a residual Add, GlobalAveragePool, Flatten and a Gemm.
def make_resnet():
    rng2 = np.random.default_rng(20261201)
    inits2, nodes2 = [], []

    def c2(name, array):
        inits2.append(numpy_helper.from_array(array, name))
        return name

    def conv_f(x, w, b, pad):  # float reference conv, NCHW, stride 1
        n, c, h, wd = x.shape
        k, _, kh, kw = w.shape
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        out = np.zeros((n, k, h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1), np.float64)
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, :, ky:ky + out.shape[2], kx:kx + out.shape[3]]
                out += np.einsum("nchw,kc->nkhw", patch, w[:, :, ky, kx])
        return out + b[None, :, None, None]

    def act_params(v, relu):
        # Asymmetric int8 grid covering [min(v, 0), max(v, 0)] (ORT MinMax calibration).
        lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
        scale = (hi - lo) / 255.0
        zp = int(round(-128 - lo / scale))
        return np.float32(scale), np.int8(max(-128, min(127, zp)))

    def qdq2(x, scale, zp, out):
        s, z = c2(out + ".s", np.array(scale, np.float32)), c2(out + ".z", np.array(zp, np.int8))
        nodes2.append(helper.make_node("QuantizeLinear", [x, s, z], [out + ".q"]))
        nodes2.append(helper.make_node("DequantizeLinear", [out + ".q", s, z], [out]))
        return out

    x_f = rng2.standard_normal((1, 3, 16, 16)).astype(np.float32)
    xs, xz = act_params(x_f, False)
    x = qdq2("input", xs, xz, "input.dq")
    values = {x: x_f.astype(np.float64)}
    scales = {x: xs}

    def conv2(xn, name, cin, cout, k, relu, out_q=True):
        # Conv + BatchNorm folded (W gamma/sqrt(var+eps), beta - mean gamma/sqrt(var+eps)).
        w = rng2.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))
        gamma, beta = rng2.uniform(0.5, 1.5, cout), rng2.standard_normal(cout) * 0.1
        mean, var = rng2.standard_normal(cout) * 0.1, rng2.uniform(0.5, 1.5, cout)
        f = gamma / np.sqrt(var + 1e-5)
        w, b = w * f[:, None, None, None], beta - mean * f
        ws = np.abs(w).reshape(cout, -1).max(axis=1) / 127.0
        wq = np.clip(np.round(w / ws[:, None, None, None]), -127, 127).astype(np.int8)
        c2(name + ".w_q", wq)
        c2(name + ".w_s", ws.astype(np.float32))
        c2(name + ".w_z", np.zeros(cout, np.int8))
        nodes2.append(helper.make_node("DequantizeLinear", [name + ".w_q", name + ".w_s", name + ".w_z"],
                                       [name + ".weight"], axis=0))
        bs = (scales[xn] * ws.astype(np.float32)).astype(np.float32)
        bq = np.round(b / bs).astype(np.int32)
        c2(name + ".b_q", bq)
        c2(name + ".b_s", bs)
        c2(name + ".b_z", np.zeros(cout, np.int32))
        nodes2.append(helper.make_node("DequantizeLinear", [name + ".b_q", name + ".b_s", name + ".b_z"],
                                       [name + ".bias"], axis=0))
        nodes2.append(helper.make_node("Conv", [xn, name + ".weight", name + ".bias"], [name + ".out"],
                                       kernel_shape=[k, k], pads=[k // 2] * 4))
        y = conv_f(values[xn], wq * ws[:, None, None, None], bq * bs, k // 2)
        out = name + ".out"
        if relu:
            nodes2.append(helper.make_node("Relu", [out], [name + ".relu"]))
            out, y = name + ".relu", np.maximum(y, 0)
        s, z = act_params(y, relu)
        q = qdq2(out, s, z, name + ".act")
        values[q], scales[q] = y, s
        return q

    a = conv2(x, "conv1", 3, 8, 3, True)
    b = conv2(a, "conv2", 8, 8, 3, True)
    nodes2.append(helper.make_node("MaxPool", [b], ["pool.out"], kernel_shape=[2, 2], strides=[2, 2]))
    pv = values[b].reshape(1, 8, 8, 2, 8, 2).max(axis=(3, 5))
    # MaxPool keeps its input's grid (ORT's quantiser shares the parameters).
    bz = numpy_helper.to_array(next(i for i in inits2 if i.name == "conv2.act.z"))
    p = qdq2("pool.out", scales[b], bz, "pool.act")
    values[p], scales[p] = pv, scales[b]
    c = conv2(p, "conv3", 8, 8, 3, False)
    nodes2.append(helper.make_node("Add", [p, c], ["add.out"]))
    av = values[p] + values[c]
    s, z = act_params(av, False)
    sum_q = qdq2("add.out", s, z, "add.act")
    nodes2.append(helper.make_node("Relu", [sum_q], ["add.relu"]))
    rv = np.maximum(av, 0)
    s, z = act_params(rv, True)
    r = qdq2("add.relu", s, z, "relu.act")
    values[r], scales[r] = rv, s
    d = conv2(r, "conv4", 8, 16, 1, True)
    nodes2.append(helper.make_node("GlobalAveragePool", [d], ["gap.out"]))
    dz = numpy_helper.to_array(next(i for i in inits2 if i.name == "conv4.act.z"))
    g = qdq2("gap.out", scales[d], dz, "gap.act")  # keeps its input's grid
    gv = values[d].mean(axis=(2, 3))
    nodes2.append(helper.make_node("Flatten", [g], ["flat"], axis=1))
    wf = rng2.standard_normal((10, 16)) * 0.3
    wfs = np.abs(wf).max(axis=1) / 127.0
    c2("fc.w_q", np.round(wf / wfs[:, None]).astype(np.int8))
    c2("fc.w_s", wfs.astype(np.float32))
    c2("fc.w_z", np.zeros(10, np.int8))
    nodes2.append(helper.make_node("DequantizeLinear", ["fc.w_q", "fc.w_s", "fc.w_z"], ["fc.weight"], axis=0))
    fbs = (scales[d] * wfs.astype(np.float32)).astype(np.float32)
    c2("fc.b_q", np.round(rng2.standard_normal(10) * 0.1 / fbs).astype(np.int32))
    c2("fc.b_s", fbs)
    c2("fc.b_z", np.zeros(10, np.int32))
    nodes2.append(helper.make_node("DequantizeLinear", ["fc.b_q", "fc.b_s", "fc.b_z"], ["fc.bias"], axis=0))
    nodes2.append(helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["fc.out"], transB=1))
    fv = gv @ (np.round(wf / wfs[:, None]) * wfs[:, None]).T
    s, z = act_params(fv, False)
    nodes2.append(helper.make_node("QuantizeLinear", ["fc.out", c2("out.s", np.array(s, np.float32)),
                                                      c2("out.z", np.array(z, np.int8))], ["out.q"]))
    nodes2.append(helper.make_node("DequantizeLinear", ["out.q", "out.s", "out.z"], ["output"]))
    graph2 = helper.make_graph(nodes2, "qdq_resnet",
                               [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
                               [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])], inits2)
    model2 = helper.make_model(graph2, opset_imports=[helper.make_opsetid("", 13)],
                               producer_name="npu-sim make_qdq_model.py")
    onnx.checker.check_model(model2)
    out2 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "qdq_resnet.onnx")
    onnx.save(model2, out2)
    print("wrote", os.path.normpath(out2))


make_resnet()
