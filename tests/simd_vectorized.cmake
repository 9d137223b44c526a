# The per-ISA helpers (runtime/**/*_simd.inl) are plain loops that only run fast when the
# compiler vectorizes them; a flag or a branch in simd_math.h can silently turn them back
# into scalar code (they did: without -fno-trapping-math every loop calling exp_f / log_f
# stayed scalar). This checks the generated code: each function listed below must contain
# a vector FMA on the ISA's full-width registers (the exp / log polynomials).
#
# -DOBJECTS=a.o|b.o|...  the jitconv library's object files
# -DOBJDUMP=path
cmake_minimum_required(VERSION 3.16)
string(REPLACE "|" ";" objects "${OBJECTS}")
# object file name stem | function name (demangled, a prefix of it) | register
set(checks
  "lrn_simd_avx2|jitconv::avx2::lrn_normalize(|ymm"
  "softmax_simd_avx2|jitconv::avx2::softmax_block(|ymm"
  "elementwise_simd_avx2|jitconv::avx2::unary_inplace(|ymm"
  "lrn_simd_avx512|jitconv::avx512::lrn_normalize(|zmm"
  "softmax_simd_avx512|jitconv::avx512::softmax_block(|zmm"
  "elementwise_simd_avx512|jitconv::avx512::unary_inplace(|zmm")
set(failures 0)
foreach(check ${checks})
  string(REPLACE "|" ";" parts "${check}")
  list(GET parts 0 stem)
  list(GET parts 1 function)
  list(GET parts 2 reg)
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
  execute_process(COMMAND ${OBJDUMP} -d -C --no-show-raw-insn ${object}
                  OUTPUT_VARIABLE asm RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${OBJDUMP} failed on ${object}")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  # The function's symbols (its body and any OpenMP outlined part): from each header line
  # "<function...>:" to the next header.
  string(REPLACE "\n" ";" lines "${asm}")
  set(inside FALSE)
  set(found_function FALSE)
  set(fmas 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-f]+ <(.*)>:$")
      string(FIND "${CMAKE_MATCH_1}" "${function}" at)
      if(at EQUAL 0)
        set(inside TRUE)
        set(found_function TRUE)
      else()
        set(inside FALSE)
      endif()
    elseif(inside AND line MATCHES "vfn?m(add|sub)[0-9]+ps.*%${reg}")
      math(EXPR fmas "${fmas} + 1")
    endif()
  endforeach()
  if(NOT found_function)
    message(SEND_ERROR "${function} not found in ${object}")
    math(EXPR failures "${failures} + 1")
  elseif(fmas EQUAL 0)
    message(SEND_ERROR "${function} in ${object} has no ${reg} FMA: its loops were not vectorized")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "${function}: ${fmas} ${reg} FMAs")
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} helper(s) not vectorized")
endif()
