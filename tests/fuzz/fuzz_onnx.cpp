// libFuzzer target: the ONNX front-end on raw bytes (npu::compiler::load_model_bytes,
// compiler/include/npu/compiler/frontend/model_loader.hpp): protobuf parsing, import, ONNX shape
// inference, recognisers and host placement -- what `npu compile MODEL.onnx` runs before
// lowering. No SystemC is linked.
#include "fuzz_common.hpp"
#include "npu/compiler/frontend/model_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::run_one([&] {
    (void)npu::compiler::load_model_bytes(npu::fuzz::as_text(data, size), "fuzz.onnx");
  });
}
