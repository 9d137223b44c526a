// Declares and calls the per-ISA variants of a helper written once in a *_simd.inl file
// (cmake/simd.cmake compiles each .inl three times, into namespaces scalar/avx2/avx512).
#pragma once
#include "runtime/cpu.h"

#define JITCONV_SIMD_DECLARE(ret, name, params) \
  namespace scalar {                            \
  ret name params;                              \
  }                                             \
  namespace avx2 {                              \
  ret name params;                              \
  }                                             \
  namespace avx512 {                            \
  ret name params;                              \
  }

// The variant for an explicit ISA: for implementations built for one ISA at
// create_pipeline (which a later set_max_isa must not switch under them).
#define JITCONV_SIMD_CALL_ISA(isa, name, ...)                               \
  ((isa) == ::jitconv::Isa::avx512 ? avx512::name(__VA_ARGS__)             \
   : (isa) == ::jitconv::Isa::avx2 ? avx2::name(__VA_ARGS__)               \
                                   : scalar::name(__VA_ARGS__))

// The variant for the ISA in use (the .inl compiled with those -m flags).
#define JITCONV_SIMD_CALL(name, ...)                              \
  (::jitconv::current_isa() == ::jitconv::Isa::avx512 ? avx512::name(__VA_ARGS__) \
   : ::jitconv::current_isa() == ::jitconv::Isa::avx2 ? avx2::name(__VA_ARGS__)   \
                                                      : scalar::name(__VA_ARGS__))
