# cmake -P script behind the consumer_installed_package test:
#   1. cmake --install BUILD_DIR --prefix WORK_DIR/prefix
#   2. configure and build tests/consumer/project (find_package(ggml), ggml::ggml) against that prefix; run both of
#      its programs: main.c, and all_functions.cpp (every upstream function referenced with its upstream type)
#   3. compile main.c with `cc $(pkg-config --cflags --libs ggml)` against the same prefix; run it with
#      LD_LIBRARY_PATH pointing there. Skipped, with a message, only when pkg-config is not installed.
# Inputs (-D): BUILD_DIR WORK_DIR PROJECT_DIR MAIN_C ALL_FUNCTIONS_CPP LIBDIR C_COMPILER CXX_COMPILER GENERATOR
#              BUILD_TYPE C_FLAGS CXX_FLAGS EXE_LINKER_FLAGS SHARED (the main build's BUILD_SHARED_LIBS)
#              TOOLS BENCHMARKS (the main build's GGML_BUILD_TOOLS and GGML_BUILD_BENCHMARKS: step 1b runs the
#              installed switchyard-ops and alloc_plan where they are built; check_install_lists.cmake checks the
#              installed file lists)
cmake_minimum_required(VERSION 3.25)

foreach (var BUILD_DIR WORK_DIR PROJECT_DIR MAIN_C ALL_FUNCTIONS_CPP LIBDIR C_COMPILER CXX_COMPILER GENERATOR)
    if (NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
        message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
    endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
if (IS_ABSOLUTE "${LIBDIR}")
    set(libdir ${LIBDIR})
else()
    set(libdir ${prefix}/${LIBDIR})
endif()

# Runs a command; stops the test with its output when it fails.
function(run_step what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc})\ncommand: ${ARGN}\n${out}\n${err}")
    endif()
    message(STATUS "${what}: ok")
    set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# 1. install
run_step("install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach (f include/ggml.h include/ggml-backend.h ${LIBDIR}/cmake/ggml/ggml-config.cmake ${LIBDIR}/pkgconfig/ggml.pc)
    if (NOT EXISTS ${prefix}/${f})
        message(FATAL_ERROR "the install lacks ${f}")
    endif()
endforeach()

# 1b. the installed tools run from the prefix alone (their RPATH finds the installed libraries): a slice of the
#     conformance suite, and the planner benchmark's bound check
if (TOOLS)
    if (NOT EXISTS ${prefix}/bin/switchyard-ops)
        message(FATAL_ERROR "the install lacks bin/switchyard-ops")
    endif()
    run_step("installed switchyard-ops test -o ADD,MUL_MAT" ${prefix}/bin/switchyard-ops test -o ADD,MUL_MAT --no-progress)
endif()
if (BENCHMARKS)
    if (NOT EXISTS ${prefix}/bin/alloc_plan)
        message(FATAL_ERROR "the install lacks bin/alloc_plan")
    endif()
    run_step("installed alloc_plan" ${prefix}/bin/alloc_plan)
endif()

# 2. find_package(ggml)
set(cmake_build ${WORK_DIR}/cmake-build)
run_step("configure the consumer project with find_package(ggml)"
    ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${cmake_build} -G ${GENERATOR}
        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
        -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCONSUMER_MAIN_C=${MAIN_C} -DCONSUMER_ALL_FUNCTIONS_CPP=${ALL_FUNCTIONS_CPP}
        "-DCMAKE_C_FLAGS=${C_FLAGS}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}")
run_step("build the consumer project" ${CMAKE_COMMAND} --build ${cmake_build})
run_step("run the find_package(ggml) consumer" ${cmake_build}/ggml_consumer ${WORK_DIR}/cmake.dot)
message(STATUS "${step_output}")
run_step("run the C++ program that references every upstream function" ${cmake_build}/ggml_all_functions)
message(STATUS "${step_output}")

# 3. pkg-config ggml
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if (NOT PKG_CONFIG)
    message(STATUS "SKIPPED the pkg-config half of the consumer test: pkg-config is not installed")
    return()
endif()
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
set(pc_args --cflags --libs)
if (DEFINED SHARED AND NOT SHARED)
    list(PREPEND pc_args --static)
endif()
run_step("pkg-config ${pc_args} ggml" ${PKG_CONFIG} ${pc_args} ggml)
string(STRIP "${step_output}" pc_flags)
string(FIND "${pc_flags}" "${prefix}" at)
if (at EQUAL -1)
    message(FATAL_ERROR "pkg-config does not point into the install prefix ${prefix}: ${pc_flags}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(c_flags UNIX_COMMAND "${C_FLAGS}")
separate_arguments(ld_flags UNIX_COMMAND "${EXE_LINKER_FLAGS}")
set(pc_exe ${WORK_DIR}/pkg-config-build/ggml_consumer)
file(MAKE_DIRECTORY ${WORK_DIR}/pkg-config-build)
run_step("compile main.c with pkg-config's flags"
    ${C_COMPILER} -std=c11 -Wall -Wextra -Werror ${c_flags} ${MAIN_C} -o ${pc_exe} ${pc_flags} ${ld_flags})
set(ENV{LD_LIBRARY_PATH} "${libdir}:$ENV{LD_LIBRARY_PATH}")
run_step("run the pkg-config consumer" ${pc_exe} ${WORK_DIR}/pkg-config.dot)
message(STATUS "${step_output}")
