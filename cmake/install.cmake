# Install layout as upstream: headers, the three libraries, a CMake package (find_package(ggml) gives
# ggml::ggml, ggml::ggml-base, ggml::ggml-cpu, with GGML_VULKAN also ggml::ggml-vulkan) and ggml.pc for pkg-config.
include(CMakePackageConfigHelpers)

set(GGML_PUBLIC_HEADERS
    include/ggml.h include/ggml-alloc.h include/ggml-backend.h include/ggml-backend-impl.h include/ggml-cpu.h
    include/gguf.h include/ggml-cpp.h include/ggml-opt.h)
set(GGML_INSTALL_TARGETS ggml-base ggml-cpu ggml)
if (GGML_VULKAN) # the Vulkan backend: ggml::ggml-vulkan and ggml-vulkan.h
    list(APPEND GGML_PUBLIC_HEADERS include/ggml-vulkan.h)
    list(APPEND GGML_INSTALL_TARGETS ggml-vulkan)
endif()
if (GGML_MPI) # the MPI layer: ggml::ggml-mpi and ggml-mpi.h
    list(APPEND GGML_PUBLIC_HEADERS include/ggml-mpi.h)
    list(APPEND GGML_INSTALL_TARGETS ggml-mpi)
endif()
install(FILES ${GGML_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The test device's library goes beside the others where it is a shared library and installed programs link it
# (--test-device of the tools and the demo); it is not part of the package (no header, not exported, not in
# ggml.pc).
if (BUILD_SHARED_LIBS AND (GGML_BUILD_TOOLS OR GGML_BUILD_EXAMPLES))
    install(TARGETS ggml-test-device LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
    set_property(GLOBAL APPEND PROPERTY SWITCHYARD_INSTALLED_TARGETS ggml-test-device)
endif()

set_property(GLOBAL APPEND PROPERTY SWITCHYARD_INSTALLED_TARGETS ${GGML_INSTALL_TARGETS})
install(TARGETS ${GGML_INSTALL_TARGETS}
    EXPORT ggml-targets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# switchyard_warnings is a build-only interface target; export it empty so the link interface stays valid.
install(TARGETS switchyard_warnings EXPORT ggml-targets)

install(EXPORT ggml-targets NAMESPACE ggml:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ggml)

configure_package_config_file(cmake/ggml-config.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/ggml-config.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ggml)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ggml-version.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ggml-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/ggml-version.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ggml)

# ggml.pc names the prefix its files are installed under, and `cmake --install <build> --prefix <dir>` picks that
# prefix after configuring. So the file is made in two passes: now, everything but the prefix (which stays a
# placeholder); at install time, the prefix then in effect.
foreach (dir LIBDIR INCLUDEDIR)
    if (IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
        set(GGML_PC_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
        set(GGML_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif()
endforeach()
set(GGML_PC_PREFIX "@GGML_PC_PREFIX@")
configure_file(cmake/ggml.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ggml.pc.in @ONLY)
install(CODE "
    set(GGML_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/ggml.pc.in\" \"${CMAKE_CURRENT_BINARY_DIR}/ggml.pc\" @ONLY)
")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ggml.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
