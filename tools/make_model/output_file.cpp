#include "output_file.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace switchyard::make_model {

namespace {

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kSignalCount      = static_cast<int>(sizeof(kCleanupSignals) / sizeof(kCleanupSignals[0]));

// what the signal handler needs, set before it is installed: the temporary's path as a plain array (the handler
// may only make async-signal-safe calls)
char                       g_temp_path[4096];
volatile std::sig_atomic_t g_remove_on_signal = 0;
struct sigaction           g_previous[kSignalCount];
bool                       g_installed[kSignalCount];
struct sigaction           g_previous_xfsz;

extern "C" void remove_temp_and_reraise(int sig) {
    if (g_remove_on_signal != 0) {
        unlink(g_temp_path);
    }
    // SA_RESETHAND has restored the default action, which ends the process once the handler returns (or at once,
    // where the signal is not blocked inside its handler)
    raise(sig);
}

void install_handlers() {
    struct sigaction action {};
    action.sa_handler = remove_temp_and_reraise;
    action.sa_flags   = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < kSignalCount; ++i) {
        // a signal the caller ignores (nohup, a background job) stays ignored
        g_installed[i] = sigaction(kCleanupSignals[i], nullptr, &g_previous[i]) == 0 &&
                         g_previous[i].sa_handler != SIG_IGN &&
                         sigaction(kCleanupSignals[i], &action, nullptr) == 0;
    }
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, &g_previous_xfsz);
}

void restore_handlers() {
    for (int i = 0; i < kSignalCount; ++i) {
        if (g_installed[i]) {
            sigaction(kCleanupSignals[i], &g_previous[i], nullptr);
            g_installed[i] = false;
        }
    }
    sigaction(SIGXFSZ, &g_previous_xfsz, nullptr);
}

} // namespace

OutputFile::~OutputFile() {
    discard();
}

bool OutputFile::open(const std::string & path, std::string & error) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        error = "'" + path + "' exists and is not a regular file";
        return false;
    }
    const std::string temp = path + ".tmp." + std::to_string(getpid());
    if (armed_ || temp.size() >= sizeof(g_temp_path)) {
        error = armed_ ? "an output file is already open" : "the output path is too long";
        return false;
    }
    path_ = path;
    temp_ = temp;
    std::memcpy(g_temp_path, temp_.c_str(), temp_.size() + 1);
    g_remove_on_signal = 1;
    install_handlers();
    armed_ = true;
    return true;
}

bool OutputFile::commit(std::string & error) {
    if (!armed_) {
        error = "no output file is open";
        return false;
    }
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
        error = "cannot rename '" + temp_ + "' to '" + path_ + "': " + std::strerror(errno);
        discard();
        return false;
    }
    // a signal from here on finds no temporary to remove: the file is complete under its name
    g_remove_on_signal = 0;
    restore_handlers();
    armed_ = false;
    return true;
}

void OutputFile::discard() {
    if (!armed_) {
        return;
    }
    unlink(temp_.c_str()); // (it may not have been created)
    g_remove_on_signal = 0;
    restore_handlers();
    armed_ = false;
}

} // namespace switchyard::make_model
