// Logging: every message of the library goes through here, to the callback set with ggml_log_set (default:
// stderr). Messages name the function or op they come from, e.g. "[ggml_mul_mat] ...".
#pragma once

#include "ggml.h"

namespace switchyard {

void log(ggml_log_level level, const char * fmt, ...) __attribute__((format(printf, 2, 3)));
void log_error(const char * fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char * fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char * fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char * fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace switchyard
