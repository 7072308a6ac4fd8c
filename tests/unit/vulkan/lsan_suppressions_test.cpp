// LeakSanitizer's built-in suppressions for the Vulkan tests (read by the sanitizer runtime, ignored otherwise):
// Mesa's lavapipe 22.3 leaks a few small blocks per compiled pipeline inside the driver. Leaks in our code are
// still reported: only stacks through the driver library are suppressed.
extern "C" const char * __lsan_default_suppressions() { return "leak:libvulkan_lvp.so\n"; }
