// tensor_set_pieces: a large quantized weight written with ggml_backend_tensor_set in row pieces, as loaders that
// stream a file in chunks do, into the plain CPU buffer and into CPU_REPACK (where each piece is repacked). Each
// write should cost in proportion to its own bytes: the CPU_REPACK time over the plain time stays a constant
// factor (the repacking itself) whatever the number of pieces, instead of growing with it.
//
//   tensor_set_pieces [--mib N (1024)] [--rows-per-piece R (64)] [--type q4_0|q8_0|q4_K|iq4_nl] [--rounds N (3)]
//
// Prints per round the seconds of both writes, interleaved, and the medians and their ratio.
#include "cpu_repack.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

// Seconds to write `bytes` into a fresh tensor of `buft` in pieces of `piece` bytes (the allocation is not timed).
double write_in_pieces(ggml_backend_buffer_type_t buft, ggml_type type, int64_t k, int64_t m,
                       const std::vector<uint8_t> & bytes, size_t piece) {
    ggml_init_params params = {ggml_tensor_overhead(), nullptr, true};
    ggml_context *   ctx    = ggml_init(params);
    ggml_tensor *    w      = ggml_new_tensor_2d(ctx, type, k, m);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    if (buf == nullptr) {
        std::fprintf(stderr, "tensor_set_pieces: cannot allocate %zu bytes in %s\n", bytes.size(), ggml_backend_buft_name(buft));
        std::exit(1);
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t at = 0; at < bytes.size(); at += piece) {
        ggml_backend_tensor_set(w, bytes.data() + at, at, std::min(piece, bytes.size() - at));
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // a spot check that the pieces landed: the last row reads back as written
    const size_t         row = ggml_row_size(type, k);
    std::vector<uint8_t> last(row);
    ggml_backend_tensor_get(w, last.data(), bytes.size() - row, row);
    if (!std::equal(last.begin(), last.end(), bytes.end() - static_cast<std::ptrdiff_t>(row))) {
        std::fprintf(stderr, "tensor_set_pieces: %s: the last row reads back differently\n", ggml_backend_buft_name(buft));
        std::exit(1);
    }
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char ** argv) {
    int64_t     mib = 1024, rows_per_piece = 64;
    int         rounds = 3;
    std::string type_name = "q4_0";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--mib") mib = std::atoll(argv[i + 1]);
        else if (a == "--rows-per-piece") rows_per_piece = std::atoll(argv[i + 1]);
        else if (a == "--type") type_name = argv[i + 1];
        else if (a == "--rounds") rounds = std::atoi(argv[i + 1]);
        else { std::fprintf(stderr, "tensor_set_pieces: unknown option %s\n", a.c_str()); return 2; }
    }
    ggml_type type = GGML_TYPE_COUNT;
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        if (type_name == ggml_type_name(static_cast<ggml_type>(t))) type = static_cast<ggml_type>(t);
    }
    ggml_backend_buffer_type_t repack = cpu_repack_buffer_type();
    if (type == GGML_TYPE_COUNT || repack == nullptr || mib <= 0 || rows_per_piece <= 0 || rounds <= 0) {
        std::fprintf(stderr, "tensor_set_pieces: bad arguments (or no CPU_REPACK buffer type)\n");
        return 2;
    }
    const int64_t k     = 4096;
    const size_t  row   = ggml_row_size(type, k);
    const int64_t m     = std::max<int64_t>(1, (mib << 20) / static_cast<int64_t>(row));
    const size_t  piece = static_cast<size_t>(rows_per_piece) * row;
    // weights with valid scales: random quantized rows of random floats
    std::vector<uint8_t> bytes(static_cast<size_t>(m) * row);
    {
        std::mt19937                          rng(7);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        std::vector<float>                    x(static_cast<size_t>(k) * 64);
        for (float & v : x) v = dist(rng);
        for (int64_t r = 0; r < m; r += 64) {
            const int64_t n = std::min<int64_t>(64, m - r);
            ggml_quantize_chunk(type, x.data(), bytes.data() + static_cast<size_t>(r) * row, 0, n, k, nullptr);
        }
    }
    std::printf("%s [%lld x %lld], %.0f MiB in %lld pieces of %lld rows\n", ggml_type_name(type),
                static_cast<long long>(k), static_cast<long long>(m), bytes.size() / 1048576.0,
                static_cast<long long>((bytes.size() + piece - 1) / piece), static_cast<long long>(rows_per_piece));
    std::vector<double> plain, repacked;
    for (int r = 0; r < rounds; ++r) {
        plain.push_back(write_in_pieces(ggml_backend_cpu_buffer_type(), type, k, m, bytes, piece));
        repacked.push_back(write_in_pieces(repack, type, k, m, bytes, piece));
        std::printf("round %d: CPU %.3f s, CPU_REPACK %.3f s\n", r + 1, plain.back(), repacked.back());
    }
    std::printf("median: CPU %.3f s, CPU_REPACK %.3f s, ratio %.2f\n", median(plain), median(repacked),
                median(repacked) / median(plain));
    return 0;
}
