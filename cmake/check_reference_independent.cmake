# Configure-time check that the reference interpreter stays independent of what it checks
# (DESIGN.md "Functional mode"; docs/architecture.md): npu_reference may link the IR and the
# ISA (with the hardware config and base libraries beneath it) only, and its sources may include no header of the compiler's front, middle or back
# end, nor of the hardware models. A violation stops the configure with the offending
# library or file:line, so "bit-exact with the reference" keeps meaning two codes agree.
function(npu_check_reference_independent)
  set(allowed npu_ir npu_isa npu_hw_config npu_base)
  get_target_property(links npu_reference LINK_LIBRARIES)
  foreach(lib IN LISTS links)
    if(NOT lib IN_LIST allowed)
      message(FATAL_ERROR "npu_reference links ${lib}: the reference interpreter may link only "
        "${allowed} (compiler/CMakeLists.txt). Move what it needs into the IR or compute it in "
        "compiler/src/reference/ itself.")
    endif()
  endforeach()
  file(GLOB_RECURSE sources ${PROJECT_SOURCE_DIR}/compiler/src/reference/*.cpp
    ${PROJECT_SOURCE_DIR}/compiler/src/reference/*.hpp
    ${PROJECT_SOURCE_DIR}/compiler/include/npu/compiler/reference/*.hpp)
  set(forbidden "npu/compiler/(frontend|transforms|quantize|backend|driver)/|npu/hw/|npu/sim/")
  foreach(src IN LISTS sources)
    file(STRINGS ${src} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    foreach(line IN LISTS includes)
      if(line MATCHES "\"(${forbidden})")
        file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${src})
        message(FATAL_ERROR "${rel}: '${line}': the reference interpreter must not include the "
          "compiler's front/middle/back end or the hardware models; compute it from the op's "
          "ONNX definition in compiler/src/reference/ instead.")
      endif()
    endforeach()
  endforeach()
endfunction()
