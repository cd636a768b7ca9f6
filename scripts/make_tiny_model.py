#!/usr/bin/python3
"""Writes tests/data/tiny_convnet.onnx: a tiny CNN with every fusion pattern the compiler
handles, small enough for golden traces (see traces/README.md).

  input 1x3x32x32
  conv1 3->8 3x3 pad 1, bn1, relu1                    (Conv+BN+ReLU)
  conv2 8->8 3x3 pad 1, bn2, add(relu1), relu2        (residual block)
  conv3 8->16 1x1 stride 2, bn3, clip 0..6            (ReLU6, MobileNet style)
  conv4 16->16 3x3 pad 1 group 16, bn4, sigmoid*mul   (depthwise, SiLU)
  GlobalAveragePool, Flatten, Gemm 16->10             (classifier)

Deterministic: numpy seed 7, opset 13, BN kept as separate nodes with constant statistics.
Needs Debian's python3-onnx and python3-numpy. Run: /usr/bin/python3 scripts/make_tiny_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
inits, nodes = [], []


def const(name, arr):
    inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name))
    return name


def conv_bn(prefix, x, cin, cout, k, stride=1, pad=0, group=1):
    w = const(f"{prefix}.weight", rng.normal(0, 0.3, (cout, cin // group, k, k)))
    out = f"{prefix}.conv_out"
    nodes.append(helper.make_node("Conv", [x, w], [out], name=f"{prefix}.conv", kernel_shape=[k, k],
                                  strides=[stride, stride], pads=[pad] * 4, group=group))
    bn_out = f"{prefix}.bn_out"
    nodes.append(helper.make_node(
        "BatchNormalization",
        [out, const(f"{prefix}.bn.weight", rng.uniform(0.5, 1.5, cout)), const(f"{prefix}.bn.bias", rng.normal(0, 0.1, cout)),
         const(f"{prefix}.bn.running_mean", rng.normal(0, 0.1, cout)),
         const(f"{prefix}.bn.running_var", rng.uniform(0.5, 2.0, cout))],
        [bn_out], name=f"{prefix}.bn", epsilon=1e-5, momentum=0.9))
    return bn_out


x = conv_bn("layer1", "input", 3, 8, 3, pad=1)
nodes.append(helper.make_node("Relu", [x], ["layer1.relu_out"], name="layer1.relu"))
y = conv_bn("layer2", "layer1.relu_out", 8, 8, 3, pad=1)
nodes.append(helper.make_node("Add", [y, "layer1.relu_out"], ["layer2.add_out"], name="layer2.add"))
nodes.append(helper.make_node("Relu", ["layer2.add_out"], ["layer2.relu_out"], name="layer2.relu"))
z = conv_bn("layer3", "layer2.relu_out", 8, 16, 1, stride=2)
lo, hi = const("clip.min", 0.0), const("clip.max", 6.0)
nodes.append(helper.make_node("Clip", [z, lo, hi], ["layer3.clip_out"], name="layer3.clip"))
d = conv_bn("layer4", "layer3.clip_out", 16, 16, 3, pad=1, group=16)
nodes.append(helper.make_node("Sigmoid", [d], ["layer4.sigmoid_out"], name="layer4.sigmoid"))
nodes.append(helper.make_node("Mul", [d, "layer4.sigmoid_out"], ["layer4.silu_out"], name="layer4.mul"))
nodes.append(helper.make_node("GlobalAveragePool", ["layer4.silu_out"], ["pool_out"], name="pool"))
nodes.append(helper.make_node("Flatten", ["pool_out"], ["flat_out"], name="flatten", axis=1))
nodes.append(helper.make_node("Gemm", ["flat_out", const("fc.weight", rng.normal(0, 0.3, (10, 16))),
                                       const("fc.bias", rng.normal(0, 0.1, 10))], ["output"], name="fc", transB=1))

graph = helper.make_graph(nodes, "tiny_convnet",
                          [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])], inits)
model = helper.make_model(graph, producer_name="npu-sim scripts/make_tiny_model.py",
                          opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "tiny_convnet.onnx")
onnx.save(model, out)
print(out, os.path.getsize(out), "bytes")
