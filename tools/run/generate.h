// switchyard-run's main job: the prompt through the model in batches, then tokens generated one at a time and
// streamed (text through TextStream, or the ids with --tokens), then the speed, the plan and the memory.
//
// Where it stops: -n tokens, an end-of-generation token, or a full context: with -n -1 the generation runs until
// one of the last two. A full context is a warning on standard error ("the context is full"), and the run
// still prints what it generated and exits with status 0, as llama.cpp's completion does when it stops there.
// A prompt longer than the context keeps its last n_ctx tokens (a warning). Logits that are not finite stop the
// run with an error naming the first node that produced a non-finite value (diagnose.h). --plan and --trace are
// opened before the run, so that a path that cannot be written is an error (exit 1) before any work.
#pragma once

#include "cli.h"
#include "devices.h"
#include "model.h"

namespace switchyard::run {

// Returns the exit status: 0, or 1 after a message on standard error.
int generate(const Model & model, const Devices & devices, const Options & o);

} // namespace switchyard::run
