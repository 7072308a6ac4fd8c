#include "bench_table.h"

#include "json_quote.h"
#include "text_stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace switchyard::run {

namespace {

std::string pad(const std::string & cell, size_t width, bool right) {
    const size_t      w   = display_width(cell);
    const std::string gap = std::string(width > w ? width - w : 0, ' ');
    return right ? gap + cell : cell + gap;
}

std::string printf_text(const char * format, double a, double b = 0.0) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), format, a, b);
    return buf;
}

std::string threads_of(const BenchSetup & s, const BenchRow & row) {
    return std::to_string(row.n_threads > 0 ? row.n_threads : s.n_threads);
}

std::string markdown(const BenchSetup & s, const std::vector<BenchRow> & rows) {
    const double mib = static_cast<double>(s.model_size) / (1024.0 * 1024.0);
    const double m   = static_cast<double>(s.model_n_params) / 1e6;
    std::vector<std::vector<std::string>> cells;
    for (const BenchRow & row : rows) {
        cells.push_back({s.model_type, printf_text("%.2f MiB", mib), printf_text("%.2f M", m), s.backends,
                         threads_of(s, row), row.test,
                         printf_text("%.2f ± %.2f", mean_of(row.rates), stddev_of(row.rates))});
    }
    return markdown_table({"model", "size", "params", "backend", "threads", "test", "t/s"}, cells,
                          {false, true, true, false, true, true, true});
}

std::string csv_field(const std::string & v) {
    std::string out = "\"";
    for (char c : v) {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}

std::string csv(const BenchSetup & s, const std::vector<BenchRow> & rows) {
    std::string out = "model_filename,model_type,model_size,model_n_params,backends,n_threads,n_batch,n_prompt,n_gen,"
                      "avg_ts,stddev_ts\n";
    for (const BenchRow & row : rows) {
        const std::vector<std::string> fields = {
            s.model_filename, s.model_type, std::to_string(s.model_size), std::to_string(s.model_n_params),
            s.backends, threads_of(s, row), std::to_string(s.n_batch), std::to_string(row.n_prompt),
            std::to_string(row.n_gen), printf_text("%.6f", mean_of(row.rates)),
            printf_text("%.6f", stddev_of(row.rates))};
        for (size_t i = 0; i < fields.size(); ++i) {
            out.append(i ? "," : "").append(csv_field(fields[i]));
        }
        out += "\n";
    }
    return out;
}

std::string json(const BenchSetup & s, const std::vector<BenchRow> & rows) {
    std::string out = "[";
    for (size_t r = 0; r < rows.size(); ++r) {
        const BenchRow & row = rows[r];
        std::string      samples;
        for (size_t i = 0; i < row.rates.size(); ++i) {
            samples += (i ? ", " : "") + printf_text("%.6f", row.rates[i]);
        }
        out += std::string(r ? "," : "") + "\n  {\n" +
               "    \"model_filename\": " + json_quote(s.model_filename) + ",\n" +
               "    \"model_type\": " + json_quote(s.model_type) + ",\n" +
               "    \"model_size\": " + std::to_string(s.model_size) + ",\n" +
               "    \"model_n_params\": " + std::to_string(s.model_n_params) + ",\n" +
               "    \"backends\": " + json_quote(s.backends) + ",\n" +
               "    \"n_threads\": " + threads_of(s, row) + ",\n" +
               "    \"n_batch\": " + std::to_string(s.n_batch) + ",\n" +
               "    \"n_prompt\": " + std::to_string(row.n_prompt) + ",\n" +
               "    \"n_gen\": " + std::to_string(row.n_gen) + ",\n" +
               "    \"avg_ts\": " + printf_text("%.6f", mean_of(row.rates)) + ",\n" +
               "    \"stddev_ts\": " + printf_text("%.6f", stddev_of(row.rates)) + ",\n" +
               "    \"samples_ts\": [" + samples + "]\n  }";
    }
    return out + "\n]\n";
}

} // namespace

double mean_of(const std::vector<double> & rates) {
    return rates.empty() ? 0.0 : std::accumulate(rates.begin(), rates.end(), 0.0) / static_cast<double>(rates.size());
}

double stddev_of(const std::vector<double> & rates) {
    if (rates.size() < 2) {
        return 0.0;
    }
    const double mean = mean_of(rates);
    double       var  = 0.0;
    for (double r : rates) {
        var += (r - mean) * (r - mean);
    }
    return std::sqrt(var / static_cast<double>(rates.size() - 1));
}

std::string markdown_table(const std::vector<std::string> & header, const std::vector<std::vector<std::string>> & rows,
                           const std::vector<bool> & right) {
    std::vector<size_t> width(header.size());
    for (size_t c = 0; c < header.size(); ++c) {
        width[c] = std::max<size_t>(display_width(header[c]), 1);
        for (const auto & row : rows) {
            width[c] = std::max(width[c], display_width(row[c]));
        }
    }
    std::string out = "|";
    for (size_t c = 0; c < header.size(); ++c) {
        out.append(" ").append(pad(header[c], width[c], right[c])).append(" |");
    }
    out += "\n|";
    for (size_t c = 0; c < header.size(); ++c) { // a right-aligned column's rule ends in ':', as wide as the others
        out.append(" ").append(right[c] ? width[c] - 1 : width[c], '-').append(right[c] ? ":" : "").append(" |");
    }
    out += "\n";
    for (const auto & row : rows) {
        out += "|";
        for (size_t c = 0; c < header.size(); ++c) {
            out.append(" ").append(pad(row[c], width[c], right[c])).append(" |");
        }
        out += "\n";
    }
    return out;
}

std::string format_bench(const BenchSetup & setup, const std::vector<BenchRow> & rows, BenchFormat format) {
    switch (format) {
        case BenchFormat::Csv:  return csv(setup, rows);
        case BenchFormat::Json: return json(setup, rows);
        default:                return markdown(setup, rows);
    }
}

} // namespace switchyard::run
