// LeakSanitizer's built-in suppressions for the runner's tests, which also run on lavapipe where CTest shows it
// (read by the sanitizer runtime, ignored otherwise): Mesa's lavapipe 22.3 leaks a few small blocks per compiled
// pipeline inside the driver (as in tests/unit/vulkan). Leaks in our code are still reported.
extern "C" const char * __lsan_default_suppressions() { return "leak:libvulkan_lvp.so\n"; }
