// switchyard-run: the embedded default model. Without -m the runner uses a small LLaMA-architecture GGUF with
// random weights (switchyard-make-model's preset tiny, type mixed, seed 42), written once next to the
// executable (<exe dir>/switchyard-default.gguf; the temporary directory when that is not writable) and
// checked against its plan on every later run. Its general.description says the weights are random.
#pragma once

#include <string>

namespace switchyard::run {

// The default model's path, writing the file first when it is missing or differs from the plan; false with a
// message when it cannot be written. `wrote` tells whether this call wrote it.
bool ensure_default_model(std::string & path, bool & wrote, std::string & error);

} // namespace switchyard::run
