# Cross build for 64-bit Arm Linux with Debian's cross compiler (g++-aarch64-linux-gnu); CTest runs the test
# programs under qemu-user (qemu-aarch64), with the target's libraries taken from Debian's cross sysroot.
# Used by the configure preset aarch64; scripts/install-deps.sh installs the packages.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER   aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(SWITCHYARD_AARCH64_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${SWITCHYARD_AARCH64_SYSROOT})

# libraries and packages come from the target's sysroot only, programs (glslc, pkg-config) from the build machine
set(CMAKE_FIND_ROOT_PATH ${SWITCHYARD_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
