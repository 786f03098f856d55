// tests/cuda_sim/memory_profile_hooks.cpp: the calls GCC's kernel AddressSanitizer instrumentation
// (-fsanitize=kernel-address with asan-instrumentation-with-call-threshold=0) makes before every load
// and store of the code it compiles, turned into cuda_sim::record_access: the memory profile of
// cuda_sim_memory_profile's kernels. Not instrumented itself; no AddressSanitizer runtime is linked
// (nothing is checked: the calls only count).
#include <cstddef>
#include <cstdint>

#include "cuda_sim/runtime.hpp"

#define GIGASPARSE_PROFILE_HOOK(N)                                                                                                          \
    extern "C" void __asan_load##N##_noabort(std::uintptr_t p) { cuda_sim::record_access(reinterpret_cast<const void*>(p), N, false, __builtin_return_address(0)); } \
    extern "C" void __asan_store##N##_noabort(std::uintptr_t p) { cuda_sim::record_access(reinterpret_cast<const void*>(p), N, true, __builtin_return_address(0)); }
GIGASPARSE_PROFILE_HOOK(1)
GIGASPARSE_PROFILE_HOOK(2)
GIGASPARSE_PROFILE_HOOK(4)
GIGASPARSE_PROFILE_HOOK(8)
GIGASPARSE_PROFILE_HOOK(16)
#undef GIGASPARSE_PROFILE_HOOK

extern "C" void __asan_loadN_noabort(std::uintptr_t p, std::size_t n) {
    cuda_sim::record_access(reinterpret_cast<const void*>(p), n, false, __builtin_return_address(0));
}
extern "C" void __asan_storeN_noabort(std::uintptr_t p, std::size_t n) {
    cuda_sim::record_access(reinterpret_cast<const void*>(p), n, true, __builtin_return_address(0));
}
extern "C" void __asan_handle_no_return() {}
extern "C" void __asan_before_dynamic_init(const char*) {}
extern "C" void __asan_after_dynamic_init() {}
