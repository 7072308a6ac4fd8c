#!/usr/bin/env bash
# Side by side with upstream ggml: the same bench/alloc_plan.cpp built against both libraries, run in
# alternating processes (ours, upstream, ours, upstream, ...) so that machine noise hits both alike; prints the
# median of each column and the ratio ours / upstream.
#
# Usage: bench/alloc_vs_upstream.sh OURS_ALLOC_PLAN UPSTREAM_GGML_DIR [ROUNDS] [LAYERS...]
#   OURS_ALLOC_PLAN    our build's alloc_plan (e.g. build/release/bin/alloc_plan)
#   UPSTREAM_GGML_DIR  an upstream ggml checkout built into UPSTREAM_GGML_DIR/build (CPU, Release)
#   ROUNDS             rounds per size (default 5); LAYERS: decoder depths (default 27 339 400 1380:
#                      about 900, 11,000, 13,000 and 45,000 nodes)
# Columns: first reserve (the process's first ggml_gallocr_reserve), reserve with a fresh allocator, gallocr
# alloc_graph and sched alloc_graph per step on a graph rebuilt in place (same addresses, as llama.cpp builds it),
# and the same two on a graph rebuilt at new addresses ("moved") (ms, medians of 20 steps within a round).
set -euo pipefail
ours=$1
up_dir=$2
rounds=${3:-5}
shift $(( $# >= 3 ? 3 : $# ))
layers=("$@")
[ ${#layers[@]} -eq 0 ] && layers=(27 339 400 1380)
here=$(cd "$(dirname "$0")" && pwd)
upstream_bin=$(mktemp -d)/alloc_plan_upstream
trap 'rm -rf "$(dirname "$upstream_bin")"' EXIT
${CXX:-g++} -O2 -std=c++20 -I"$up_dir/include" "$here/alloc_plan.cpp" -L"$up_dir/build/src" \
    -lggml -lggml-base -lggml-cpu -Wl,-rpath,"$up_dir/build/src" -o "$upstream_bin"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '| %6s | %-8s | %13s | %10s | %13s | %11s | %13s | %11s |\n' nodes lib "first reserve" reserve "gallocr alloc" \
    "sched alloc" "gallocr moved" "sched moved"
printf '|--------|----------|---------------|------------|---------------|-------------|---------------|-------------|\n'
for n in "${layers[@]}"; do
    : > /tmp/avu_ours.$$; : > /tmp/avu_up.$$
    for ((r = 0; r < rounds; ++r)); do
        "$ours" --side-by-side "$n" >> /tmp/avu_ours.$$
        "$upstream_bin" --side-by-side "$n" >> /tmp/avu_up.$$
    done
    declare -A med
    for lib in ours up; do
        for col in 2 3 4 5 6 7; do
            med[$lib$col]=$(awk -v c=$col '{ print $c }' /tmp/avu_$lib.$$ | median)
        done
        nodes=$(awk 'NR == 1 { print $1 }' /tmp/avu_$lib.$$)
        printf '| %6s | %-8s | %13.3f | %10.3f | %13.3f | %11.3f | %13.3f | %11.3f |\n' "$nodes" "$lib" \
            "${med[${lib}2]}" "${med[${lib}3]}" "${med[${lib}4]}" "${med[${lib}5]}" "${med[${lib}6]}" "${med[${lib}7]}"
    done
    printf '| %6s | %-8s | %13.2f | %10.2f | %13.2f | %11.2f | %13.2f | %11.2f |\n' "" "ratio" \
        "$(echo "${med[ours2]} / ${med[up2]}" | bc -l)" "$(echo "${med[ours3]} / ${med[up3]}" | bc -l)" \
        "$(echo "${med[ours4]} / ${med[up4]}" | bc -l)" "$(echo "${med[ours5]} / ${med[up5]}" | bc -l)" \
        "$(echo "${med[ours6]} / ${med[up6]}" | bc -l)" "$(echo "${med[ours7]} / ${med[up7]}" | bc -l)"
    rm -f /tmp/avu_ours.$$ /tmp/avu_up.$$
done
