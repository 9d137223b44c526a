# ctest fuzz_smoke: builds the libFuzzer targets with clang under ASan + UBSan in a
# separate build folder, then runs each for a short fixed time on a copy of the checked-in
# corpus of small valid models (the forward target runs them). Any crash, leak, undefined
# behaviour or rejection without a message fails the test.
set(fuzz_build ${WORK_DIR}/build)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${fuzz_build} -G ${GENERATOR}
                        -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
                        -DJITCONV_BUILD_FUZZERS=ON -DJITCONV_BUILD_TESTS=OFF -DJITCONV_BUILD_BENCH=OFF
                        -DJITCONV_BUILD_TOOLS=OFF -DJITCONV_WITH_ONEDNN=OFF
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz build configure failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${fuzz_build} --target jitconv_param_fuzz jitconv_model_bin_fuzz
                        jitconv_model_fuzz jitconv_forward_fuzz
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz build failed: ${rc}")
endif()
foreach(target param model_bin model forward)
  set(corpus ${WORK_DIR}/corpus_${target})
  file(REMOVE_RECURSE ${corpus})
  file(COPY ${SOURCE_DIR}/tests/fuzz/corpus/${target}/ DESTINATION ${corpus})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env
                          ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
                          UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
                          ${fuzz_build}/tests/fuzz/jitconv_${target}_fuzz
                          -max_total_time=${SECONDS} -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 ${corpus}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${err}")
  message(STATUS "jitconv_${target}_fuzz: ${runs}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "jitconv_${target}_fuzz found a problem (exit ${rc}):\n${err}")
  endif()
endforeach()
