# Warnings every target of ours is built with (g++ 12 and clang 14 must both stay clean).
add_library(switchyard_warnings INTERFACE)
target_compile_options(switchyard_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra>)

# Files whose names end in _avx2 / _avx512 / _avx512vnni (with VBMI) / _avx512bf16 / _amx (with everything below) hold ISA-specific code. They are
# compiled with the matching flags and only ever called after a run-time CPU feature check (src/cpu/simd/isa.h),
# so one build runs on any x86-64.
# On aarch64 the NEON files (_neon) need no flags (Advanced SIMD is part of ARMv8-A); files ending in _dotprod use the
# int8 dot product, called only where the CPU reports it.
function(switchyard_isa_flags)
    if (CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
        foreach (src IN LISTS ARGN)
            if (src MATCHES "_dotprod\\.cpp$")
                set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-march=armv8.2-a+dotprod")
            endif()
        endforeach()
        return()
    endif()
    if (NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
        return() # other architectures build the portable code; the ISA files compile to nothing there
    endif()
    foreach (src IN LISTS ARGN)
        if (src MATCHES "_avx2\\.cpp$")
            set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma;-mf16c")
        elseif (src MATCHES "_amx\\.cpp$")
            set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
                "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512vnni;-mavx512vbmi;-mavx512bf16;-mamx-tile;-mamx-bf16;-mamx-int8;-mfma;-mf16c")
        elseif (src MATCHES "_avx512bf16\\.cpp$")
            set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
                "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512bf16;-mfma;-mf16c")
        elseif (src MATCHES "_avx512vnni\\.cpp$")
            set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
                "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512vnni;-mavx512vbmi;-mfma;-mf16c")
        elseif (src MATCHES "_avx512\\.cpp$")
            set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
                "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mfma;-mf16c")
        elseif (src MATCHES "_f16c\\.cpp$")
            set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-mf16c;-mavx")
        endif()
    endforeach()
endfunction()
