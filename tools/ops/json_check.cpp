// switchyard-json-check: exits 0 when its standard input (or the file named as its argument) is one valid JSON
// value, 1 when it is not or is empty, 2 on a usage error. CTest pipes switchyard-ops' JSON output through it
// (tools/ops/run_check.cmake), so no scripting language is needed to validate it.
#include "support/json_check.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

int main(int argc, char ** argv) {
    if (argc > 2) {
        std::fprintf(stderr, "usage: switchyard-json-check [FILE]   (reads standard input without FILE)\n");
        return 2;
    }
    std::string text;
    if (argc == 2) {
        std::ifstream in(argv[1], std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "error: cannot read '%s'\n", argv[1]);
            return 2;
        }
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        std::fprintf(stderr, "error: no JSON: the input is empty\n");
        return 1;
    }
    if (!switchyard::testing::JsonChecker(text).valid()) {
        std::fprintf(stderr, "error: the input (%zu bytes) is not valid JSON\n", text.size());
        return 1;
    }
    std::printf("valid JSON (%zu bytes)\n", text.size());
    return 0;
}
