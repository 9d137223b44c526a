# The per-ISA helpers (runtime/**/*_simd.inl) are plain loops that only run fast when the
# compiler vectorizes them; a flag or a branch in simd_math.h can silently turn them back
# into scalar code (they did: without -fno-trapping-math every loop calling exp_f / log_f
# stayed scalar), or vectorize them the wrong way round (BinaryOp's rows against a 16-float
# pattern: GCC 12 vectorized the outer loop as a 16-way interleave of vpermd / blends,
# 4x slower on AVX2, until the pattern was copied into a local array). This checks the
# generated code: each function listed below must contain (require) or must not contain
# (forbid) an instruction matching its pattern.
#
# -DOBJECTS=a.o|b.o|...  the jitconv library's object files
# -DOBJDUMP=path
cmake_minimum_required(VERSION 3.16)
string(REPLACE "|" ";" objects "${OBJECTS}")
# object file name stem | function name (demangled, a prefix of it) | require or forbid |
# instruction regex (the exp / log polynomials' full-width vector FMAs; BinaryOp's permutes)
set(ymm_fma "vfn?m[a-z]+[0-9]+ps.*%ymm")  # no "|": it separates the fields
set(zmm_fma "vfn?m[a-z]+[0-9]+ps.*%zmm")
set(checks
  "lrn_simd_avx2|jitconv::avx2::lrn_normalize(|require|${ymm_fma}"
  "softmax_simd_avx2|jitconv::avx2::softmax_block(|require|${ymm_fma}"
  "elementwise_simd_avx2|jitconv::avx2::unary_inplace(|require|${ymm_fma}"
  "elementwise_simd_avx2|jitconv::avx2::binary_row(|forbid|vpermd"
  "lrn_simd_avx512|jitconv::avx512::lrn_normalize(|require|${zmm_fma}"
  "softmax_simd_avx512|jitconv::avx512::softmax_block(|require|${zmm_fma}"
  "elementwise_simd_avx512|jitconv::avx512::unary_inplace(|require|${zmm_fma}"
  "elementwise_simd_avx512|jitconv::avx512::binary_row(|forbid|vperm[di]")
set(failures 0)
foreach(check ${checks})
  string(REPLACE "|" ";" parts "${check}")
  list(GET parts 0 stem)
  list(GET parts 1 function)
  list(GET parts 2 mode)
  list(GET parts 3 pattern)
  set(object "")
  foreach(o ${objects})
    get_filename_component(name ${o} NAME)
    if(name MATCHES "^${stem}\\.")
      set(object ${o})
    endif()
  endforeach()
  if(NOT object)
    message(SEND_ERROR "no object file for ${stem} among the library's objects")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  # Each object is disassembled once (several checks read the elementwise ones).
  if(NOT DEFINED lines_${stem})
    execute_process(COMMAND ${OBJDUMP} -d -C --no-show-raw-insn ${object}
                    OUTPUT_VARIABLE asm RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(SEND_ERROR "${OBJDUMP} failed on ${object}")
      math(EXPR failures "${failures} + 1")
      continue()
    endif()
    string(REPLACE "\n" ";" lines_${stem} "${asm}")
  endif()
  # The function's symbols (its body and any OpenMP outlined part): from each header line
  # "<function...>:" to the next header.
  set(inside FALSE)
  set(found_function FALSE)
  set(matches 0)
  foreach(line IN LISTS lines_${stem})
    if(line MATCHES "^[0-9a-f]+ <(.*)>:$")
      string(FIND "${CMAKE_MATCH_1}" "${function}" at)
      if(at EQUAL 0)
        set(inside TRUE)
        set(found_function TRUE)
      else()
        set(inside FALSE)
      endif()
    elseif(inside AND line MATCHES "${pattern}")
      math(EXPR matches "${matches} + 1")
    endif()
  endforeach()
  if(NOT found_function)
    message(SEND_ERROR "${function} not found in ${object}")
    math(EXPR failures "${failures} + 1")
  elseif(mode STREQUAL "require" AND matches EQUAL 0)
    message(SEND_ERROR "${function} in ${object} has no '${pattern}': its loops were not vectorized")
    math(EXPR failures "${failures} + 1")
  elseif(mode STREQUAL "forbid" AND matches GREATER 0)
    message(SEND_ERROR "${function} in ${object} has ${matches} x '${pattern}': vectorized the wrong way")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "${function}: ${matches} x '${pattern}' (${mode})")
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} helper(s) not vectorized as required")
endif()
