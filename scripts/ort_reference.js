#!/usr/bin/env node
// Independent reference outputs from ONNX Runtime (CPU, graph optimisations off) for
// functional checking (docs/functional.md, "Reference interpreter").
//
// Usage: node scripts/ort_reference.js MODEL.onnx OUT_DIR INPUT.pb [INPUT.pb ...]
//   Inputs are serialized onnx.TensorProto files, given in the order of the model's graph
//   inputs (the ONNX backend-test layout: input_0.pb, input_1.pb ...). Each graph output K
//   is written to OUT_DIR/output_K.pb (a TensorProto named after the output). Prints one line
//   per output: "output_K NAME DIMS".
//
// Needs npm packages onnxruntime-node and protobufjs, installed by scripts/install_ort.sh
// into .cache/ort (or the folder in $NPU_ORT_DIR), and ONNX's onnx.proto from the Debian
// package libonnx-dev (/usr/include/onnx/onnx.proto, or $NPU_ONNX_PROTO).
// Exit status: 0 on success, 2 when a package is missing (callers skip), 1 on any other error.
'use strict';
const fs = require('fs');
const path = require('path');

const ortDir = process.env.NPU_ORT_DIR || path.resolve(__dirname, '..', '.cache', 'ort');
const protoFile = process.env.NPU_ONNX_PROTO || '/usr/include/onnx/onnx.proto';

function need(name) {
  try {
    return require(path.join(ortDir, 'node_modules', name));
  } catch (e) {
    console.error(`ort_reference: error: npm package '${name}' is not installed under ${ortDir}` +
                  ` (${e.code || e.message}); run: bash scripts/install_ort.sh`);
    process.exit(2);
  }
}

function fail(msg) {
  console.error(`ort_reference: error: ${msg}`);
  process.exit(1);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 2) fail('usage: node scripts/ort_reference.js MODEL.onnx OUT_DIR INPUT.pb [INPUT.pb ...]');
  const [modelPath, outDir, ...inputPaths] = args;
  const ort = need('onnxruntime-node');
  const protobuf = need('protobufjs');
  if (!fs.existsSync(protoFile)) fail(`${protoFile} not found: apt-get install libonnx-dev (or set NPU_ONNX_PROTO)`);
  const root = protobuf.loadSync(protoFile);
  const TensorProto = root.lookupType('onnx.TensorProto');
  const DT = TensorProto.DataType;

  // TensorProto -> ort.Tensor (float, double -> float32; int64, int32, bool as themselves).
  function readTensor(file) {
    let msg;
    try {
      msg = TensorProto.decode(fs.readFileSync(file));
    } catch (e) {
      fail(`${file}: not a serialized onnx.TensorProto (${e.message})`);
    }
    const dims = msg.dims.map(Number);
    const n = dims.reduce((a, b) => a * b, 1);
    const raw = msg.rawData && msg.rawData.length ? Buffer.from(msg.rawData) : null;
    const typed = (Ctor, field, size) => {
      if (raw) {
        if (raw.length !== n * size) fail(`${file}: raw_data has ${raw.length} bytes for ${n} elements`);
        const copy = Buffer.alloc(raw.length);
        raw.copy(copy);
        return new Ctor(copy.buffer, copy.byteOffset, n);
      }
      return Ctor.from(msg[field].map((v) => (Ctor === BigInt64Array ? BigInt(v.toString()) : v)));
    };
    switch (msg.dataType) {
      case DT.FLOAT: return new ort.Tensor('float32', typed(Float32Array, 'floatData', 4), dims);
      case DT.DOUBLE: return new ort.Tensor('float64', typed(Float64Array, 'doubleData', 8), dims);
      case DT.INT64: return new ort.Tensor('int64', typed(BigInt64Array, 'int64Data', 8), dims);
      case DT.INT32: return new ort.Tensor('int32', typed(Int32Array, 'int32Data', 4), dims);
      default: fail(`${file}: TensorProto data type ${msg.dataType} is not handled here (float, double, int64, int32)`);
    }
    return null;
  }

  // ort.Tensor -> TensorProto bytes (raw_data, little-endian as ONNX requires).
  function writeTensor(file, name, t) {
    const types = { float32: DT.FLOAT, float64: DT.DOUBLE, int64: DT.INT64, int32: DT.INT32, bool: DT.BOOL,
                    uint8: DT.UINT8, int8: DT.INT8 };
    if (!(t.type in types)) fail(`output '${name}' has type ${t.type}, which this script does not write`);
    const data = t.type === 'bool' ? Uint8Array.from(t.data, (v) => (v ? 1 : 0)) : t.data;
    const msg = TensorProto.create({
      name, dims: t.dims, dataType: types[t.type],
      rawData: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    });
    fs.writeFileSync(file, TensorProto.encode(msg).finish());
  }

  if (!fs.existsSync(modelPath)) fail(`${modelPath}: no such file`);
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', intraOpNumThreads: 1,
  });
  if (inputPaths.length !== session.inputNames.length)
    fail(`${modelPath} has ${session.inputNames.length} inputs (${session.inputNames.join(', ')}), ` +
         `${inputPaths.length} .pb files given`);
  const feeds = {};
  session.inputNames.forEach((name, k) => { feeds[name] = readTensor(inputPaths[k]); });
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  session.outputNames.forEach((name, k) => {
    writeTensor(path.join(outDir, `output_${k}.pb`), name, results[name]);
    console.log(`output_${k} ${name} ${results[name].dims.join('x')}`);
  });
}

main().catch((e) => fail(e && e.message ? e.message : String(e)));
