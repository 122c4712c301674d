// tessera-bench: Tessera's speed and accuracy next to OpenBLAS and BLIS, and the peak FLOP
// rate. main() picks the subcommand (gemm by default) and maps errors to exit statuses.
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "args.hpp"
#include "gemm_command.hpp"
#include "peak_command.hpp"
#include "spmv_command.hpp"
#include "tiny_command.hpp"

namespace {

using tessera::bench::ArgCursor;
using tessera::bench::UsageError;

struct Subcommand {
    const char *name;
    int (*run)(ArgCursor &args);
};

// Add a line here for each new subcommand (spmv, ...); the first one is the default.
constexpr Subcommand kSubcommands[] = {
    {"gemm", tessera::bench::run_gemm_command},
    {"peak", tessera::bench::run_peak_command},
    {"spmv", tessera::bench::run_spmv_command},
    {"tiny", tessera::bench::run_tiny_command},
};

} // namespace

int main(int argc, char **argv) {
    const Subcommand *command = &kSubcommands[0];
    int first = 1;
    try {
        if (argc > 1 && argv[1][0] != '-') {
            command = nullptr;
            for (const auto &c : kSubcommands)
                if (std::strcmp(argv[1], c.name) == 0) command = &c;
            if (!command) {
                std::string known;
                for (const auto &c : kSubcommands) {
                    if (!known.empty()) known += ", ";
                    known += c.name;
                }
                throw UsageError("unknown subcommand '" + std::string(argv[1]) +
                                 "' (known: " + known + ")");
            }
            first = 2;
        }
        ArgCursor args(argc, argv, first);
        return command->run(args);
    } catch (const UsageError &e) {
        std::cerr << "tessera-bench: " << e.what() << "\n"
                  << "Try 'tessera-bench --help'.\n";
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "tessera-bench: " << e.what() << '\n';
        return 1;
    }
}
