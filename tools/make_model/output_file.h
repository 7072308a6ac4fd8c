// switchyard-make-model: the output file is written under a temporary name in the same folder (so on the same file
// system) and renamed into place only once it is complete and verified. A run that fails, or that SIGINT, SIGTERM
// or SIGHUP stops, removes the temporary: it never leaves a partial model under the name asked for, nor a stray
// temporary beside it (SIGKILL excepted). A file size limit (RLIMIT_FSIZE) makes writes fail as errors instead of
// killing the process with SIGXFSZ.
#pragma once

#include <string>

namespace switchyard::make_model {

class OutputFile {
  public:
    OutputFile() = default;
    OutputFile(const OutputFile &)             = delete;
    OutputFile & operator=(const OutputFile &) = delete;
    // Removes the temporary unless commit() succeeded; restores the signal dispositions open() changed.
    ~OutputFile();

    // Chooses the temporary's name (<path>.tmp.<pid>) and installs the signal handlers that remove it. False with
    // `error` set when `path` names something other than a regular file (a folder, a device: renaming onto it
    // would replace it) or is too long. One OutputFile at a time may be open (the handlers share one path).
    bool open(const std::string & path, std::string & error);

    // The name to write the file under (empty before open()).
    const std::string & temp_path() const { return temp_; }

    // Renames the temporary onto the path given to open(); false with `error` set when that fails (the
    // temporary is then removed).
    bool commit(std::string & error);

  private:
    void discard();

    std::string path_;
    std::string temp_;
    bool        armed_ = false; // the signal handlers are installed and the temporary may exist
};

} // namespace switchyard::make_model
