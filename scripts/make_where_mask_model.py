#!/usr/bin/python3
"""Writes tests/data/where_causal_mask.onnx: attention scores masked the way Hugging Face
exports write a causal mask, Where(mask, scores, finfo(float32).min), then Softmax.

  input x 1x2x8x8 (B, H, S, S scores)
  s = x * 0.5                              (the 1/sqrt(d) scale)
  w = Where(tril(ones(1,1,8,8)) as bool, s, -3.4028235e38)
  y = Softmax(w, axis=-1)

Deterministic (no random values), opset 13. Needs Debian's python3-onnx and python3-numpy.
Run: /usr/bin/python3 scripts/make_where_mask_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

S = 8
mask = numpy_helper.from_array(np.tril(np.ones((1, 1, S, S), dtype=bool)), "mask")
neg = numpy_helper.from_array(np.array(np.finfo(np.float32).min, dtype=np.float32), "neg")
scale = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "scale")
nodes = [
    helper.make_node("Mul", ["x", "scale"], ["s"], name="scale"),
    helper.make_node("Where", ["mask", "s", "neg"], ["w"], name="causal_mask"),
    helper.make_node("Softmax", ["w"], ["y"], name="softmax", axis=-1),
]
graph = helper.make_graph(nodes, "where_causal_mask",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, S, S])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, S, S])],
                          [mask, neg, scale])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="npu-sim")
onnx.checker.check_model(model)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "where_causal_mask.onnx")
onnx.save(model, out)
print("wrote", os.path.normpath(out))
