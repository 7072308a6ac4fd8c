# What an install ships, and the rule that none of it links test code.
#
# Every target an install holds is recorded in the global property SWITCHYARD_INSTALLED_TARGETS: the programs
# through switchyard_install_programs (use it instead of install(TARGETS) for a program), the libraries by
# install.cmake. switchyard_check_shipped_links, called at the end of the top-level CMakeLists.txt, walks the link
# libraries of each of them.

# switchyard_install_programs(<target>...): installs the programs in bin/ and records them as shipped.
function(switchyard_install_programs)
    install(TARGETS ${ARGN} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    set_property(GLOBAL APPEND PROPERTY SWITCHYARD_INSTALLED_TARGETS ${ARGN})
endfunction()

# The names an item of LINK_LIBRARIES / INTERFACE_LINK_LIBRARIES links, in out_var: generator expressions taken
# off ($<LINK_ONLY:x>, $<BUILD_INTERFACE:x>, $<LINK_LIBRARY:feature,x,y>; of a condition, $<$<...>:x>, the value),
# flags (-Wl,...) dropped.
function(switchyard_link_item_names item out_var)
    while (item MATCHES "^\\$<[A-Z_]+:(.*)>$")
        set(item "${CMAKE_MATCH_1}")
    endwhile()
    if (item MATCHES "^\\$<.*>:([^<>]+)>$")
        set(item "${CMAKE_MATCH_1}")
    endif()
    string(REPLACE "," ";" names "${item}")
    list(FILTER names EXCLUDE REGEX "^-|[$<>]")
    set(${out_var} ${names} PARENT_SCOPE)
endfunction()

# Walks the link libraries of target (recursively; SWITCHYARD_LINK_SEEN holds the targets done) and stops with an
# error at test code. chain: how the installed target reached target.
function(switchyard_check_links_of target chain)
    get_property(seen GLOBAL PROPERTY SWITCHYARD_LINK_SEEN)
    if (NOT TARGET ${target} OR target IN_LIST seen)
        return()
    endif()
    set_property(GLOBAL APPEND PROPERTY SWITCHYARD_LINK_SEEN ${target})
    get_target_property(aliased ${target} ALIASED_TARGET)
    if (aliased)
        set(target ${aliased})
    endif()
    foreach (property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
        get_target_property(items ${target} ${property})
        if (NOT items)
            continue()
        endif()
        foreach (item IN LISTS items)
            switchyard_link_item_names("${item}" names)
            foreach (name IN LISTS names)
                if (name MATCHES "^(test_support|gtest|gtest_main|gmock|gmock_main|GTest::.*|GMock::.*)$")
                    message(FATAL_ERROR "${chain} links ${name}, which is test code: nothing an install holds may "
                                        "link it (see cmake/shipped.cmake)")
                endif()
                switchyard_check_links_of(${name} "${chain} -> ${name}")
            endforeach()
        endforeach()
    endforeach()
endfunction()

# Nothing an install holds links test code (test_support, GoogleTest): a program or library we ship must work
# without the tests' helpers, which are built only with GGML_BUILD_TESTS, make no promise of stable behaviour and
# may do what a shipped program must not (abort on a failed check, reach into internals). The test device and the
# conformance kit are libraries of their own for that reason (src/test_device/, tools/conformance/).
function(switchyard_check_shipped_links)
    get_property(installed GLOBAL PROPERTY SWITCHYARD_INSTALLED_TARGETS)
    foreach (target IN LISTS installed)
        set_property(GLOBAL PROPERTY SWITCHYARD_LINK_SEEN "")
        switchyard_check_links_of(${target} "installed target ${target}")
    endforeach()
endfunction()
