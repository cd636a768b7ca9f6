// libsystemc.so's main() references sc_main. Our test programs have their own main()
// (GoogleTest's), so a weak sc_main that is never called keeps every suite linkable even
// when no object of npu_hw that defines one is pulled in (e.g. Debug/sanitizer builds).
extern "C" __attribute__((weak)) int sc_main(int, char*[]) { return 1; }  // C linkage, as SystemC declares it
