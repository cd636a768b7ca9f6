#!/usr/bin/env bash
# ctest `install_consumer`: installs this build into a temporary prefix, builds examples/
# against it with find_package(npu CONFIG) (no access to the source tree's targets) and
# checks what the two example programs print.
# Usage: install_consumer.sh CMAKE BUILD_DIR SOURCE_DIR [CXX_COMPILER [FLAGS]]
#   CXX_COMPILER and FLAGS: the build's compiler and, for a sanitizer build, its -fsanitize
#   flags (an instrumented static library links only with its compiler's sanitizer runtime).
set -euo pipefail
cmake_bin=$1 build=$2 src=$3 cxx=${4:-} flags=${5:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npu-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$cmake_bin" --install "$build" --prefix "$tmp/prefix" >/dev/null
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
"$cmake_bin" -S "$src/examples" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON "${launcher[@]}" \
  ${cxx:+-DCMAKE_CXX_COMPILER="$cxx"} -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
"$cmake_bin" --build "$tmp/build" -- --quiet

fail=0
expect() {  # expect OUTPUT LINE: LINE must appear verbatim in OUTPUT
  if ! grep -qF -- "$2" <<<"$1"; then
    echo "install_consumer: missing line: $2"
    fail=1
  fi
}

# The installed DDR4-3200 preset: tCK = 2000 / 3200 = 0.625 ns, tRCD = CL = tRP = 22, BL8 ->
# BL/2 = 4 bus clocks, one controller clock (docs/ddr.md):
#   closed bank  tRCD + CL + BL/2 + 1 = 22 + 22 + 4 + 1 = 49 tCK = 30.625 ns
#   row hit      CL + BL/2 + 1 = 27 tCK = 16.875 ns
#   row conflict tRP + tRCD + CL + BL/2 + 1 = 71 tCK = 44.375 ns, at row 1 of bank 0:
#   1024 columns x 8 B x 4 bank groups x 4 banks x 2 ranks x 1 channel = 262144 = 0x40000.
cfg="$tmp/prefix/share/npu/configs/edge-npu-ddr4.yaml"
out=$("$tmp/build/ddr_tlm_target/ddr_tlm_target" "$cfg" 2>&1)
echo "$out"
expect "$out" "closed bank  addr 0x00000000  latency 30.625 ns = 49 tCK"
expect "$out" "row hit      addr 0x00000040  latency 16.875 ns = 27 tCK"
expect "$out" "row conflict addr 0x00040000  latency 44.375 ns = 71 tCK"

# Conv 3->8 3x3 pad 1 on 1x3x32x32, int8: MACs = 8 x 32 x 32 x 3 x 3 x 3 = 221184;
# compulsory read = input 3x32x32 = 3072 + weights 8x3x3x3 = 216 + folded-BN bias 8 x 4 B = 32
# = 3320 B; write = output 8x32x32 = 8192 B. conv + bn + relu fuse into 1 layer.
out=$("$tmp/build/compile_model/compile_model" "$cfg" 2>&1)
echo "$out"
expect "$out" "conv_bn_relu on edge-npu-ddr4, strategy conv-bn-act: 1 NPU layer(s)"
expect "$out" "MACs 221184"
expect "$out" "compulsory DDR read 3320 B, write 8192 B"

if [ $fail -ne 0 ]; then echo "install_consumer: FAILED"; exit 1; fi
echo "install_consumer: OK"
