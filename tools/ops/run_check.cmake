# CTest driver for switchyard-ops (cmake -P, so no shell or scripting language is needed):
#   -DTOOL=<switchyard-ops>  -DARGS="<arguments, space separated>"  -DEXPECT_EXIT=<status, default 0>
#   -DJSON_CHECK=<switchyard-json-check>   optional: pipe the tool's standard output through it; it must accept it
#   -DEXPECT_STDERR=<regex>                optional: the tool's standard error must match it
separate_arguments(args UNIX_COMMAND "${ARGS}")
if (NOT DEFINED EXPECT_EXIT)
    set(EXPECT_EXIT 0)
endif()

if (JSON_CHECK)
    execute_process(COMMAND ${TOOL} ${args} COMMAND ${JSON_CHECK} RESULTS_VARIABLE results ERROR_VARIABLE err)
    list(GET results 0 rc)
    list(GET results 1 check_rc)
    message("${err}")
    if (NOT check_rc EQUAL 0)
        message(FATAL_ERROR "the output of switchyard-ops ${ARGS} is not valid JSON (checker status ${check_rc})")
    endif()
else()
    execute_process(COMMAND ${TOOL} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message("${out}${err}")
endif()

if (NOT rc EQUAL EXPECT_EXIT)
    message(FATAL_ERROR "switchyard-ops ${ARGS} exited with ${rc}, expected ${EXPECT_EXIT}")
endif()
if (DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
    message(FATAL_ERROR "the standard error of switchyard-ops ${ARGS} does not match '${EXPECT_STDERR}'")
endif()
