# Sourced by setup.sh, test-sanitize.sh and fuzz.sh: NPU_CMAKE_LAUNCHER holds the CMake
# arguments that put ccache in front of the compiler when ccache is installed (Debian package
# ccache; .ci/run installs it), so a rebuild of unchanged sources on the same machine is a
# cache hit. Set NPU_CCACHE=0 to build without it. The cache is ccache's own (CCACHE_DIR,
# default ~/.cache/ccache); .ci/run points it at a folder kept between runs on the machine.
NPU_CMAKE_LAUNCHER=()
if [ "${NPU_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  NPU_CMAKE_LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
