#!/usr/bin/env bash
# Installs from Debian what building and testing Switchyard needs. Safe to run repeatedly; does nothing when
# everything is present already.
set -euo pipefail

# libvulkan-dev, glslc: build the Vulkan backend (GGML_VULKAN); mesa-vulkan-drivers: lavapipe, the CPU Vulkan
# device the Vulkan tests run on in CI; g++-aarch64-linux-gnu, qemu-user: the aarch64 cross build (preset
# aarch64) and its tests, with GoogleTest built from googletest's sources (/usr/src/googletest); openmpi-bin,
# libopenmpi-dev: the MPI layer (GGML_MPI) and its tests under mpirun
packages=(cmake ninja-build g++ clang pkg-config libgtest-dev libgmock-dev libbenchmark-dev
          libvulkan-dev glslc mesa-vulkan-drivers
          g++-aarch64-linux-gnu qemu-user googletest
          openmpi-bin libopenmpi-dev)

missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
