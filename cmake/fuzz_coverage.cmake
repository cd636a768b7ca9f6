# libFuzzer's coverage hooks (-fsanitize=fuzzer-no-link, NPU_FUZZ=ON) in the code the fuzz
# targets of tests/fuzz reach, and nowhere else: the input readers (YAML configs and strategy
# files, .npuasm, DDR address traces, SCALE-Sim topologies and configs) and the ONNX front end
# (protobuf import, shape inference, recognisers: fuzz_onnx). The hooks are what guides the
# fuzzer's mutations; in code no target reaches they only cost build time (clang with ASan +
# UBSan compiles sim/src/experiment/report.cpp in 11.1 s without them and 16.2 s with them,
# measured 2026-12-04), and the same build runs the GoogleTest suite under the sanitizers.
# docs/validation.md, "Fuzzing".

# npu_fuzz_coverage(TARGET REGEX): hooks in TARGET's sources whose path relative to the
# project root matches REGEX. Fails the configure when none match (a moved reader must not
# silently lose its coverage).
function(npu_fuzz_coverage target regex)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(hooked "")
  foreach(s IN LISTS sources)
    if(NOT IS_ABSOLUTE "${s}")
      set(s "${dir}/${s}")
    endif()
    file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${s}")
    if(rel MATCHES "${regex}")
      list(APPEND hooked "${s}")
    endif()
  endforeach()
  if(NOT hooked)
    message(FATAL_ERROR "npu_fuzz_coverage: no source of ${target} matches '${regex}'")
  endif()
  set_property(SOURCE ${hooked} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS -fsanitize=fuzzer-no-link)
endfunction()

npu_fuzz_coverage(npu_base "^isa/base/")                          # YAML files, depth check
npu_fuzz_coverage(npu_hw_config "^isa/hw_config/")                # fuzz_hw_config
npu_fuzz_coverage(npu_isa "^isa/src/")                            # fuzz_npuasm
npu_fuzz_coverage(npu_hw "^hw_models/src/ddr/ddr_trace")          # fuzz_dramsim3_trace, fuzz_ramulator_trace
npu_fuzz_coverage(npu_ir "^compiler/src/ir/")                     # fuzz_onnx
npu_fuzz_coverage(npu_compiler "^compiler/src/(frontend|transforms)/")  # fuzz_onnx, fuzz_scalesim_*
npu_fuzz_coverage(npu_sim "^sim/src/run/scalesim")                # fuzz_scalesim_*
