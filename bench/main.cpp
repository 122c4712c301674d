// tessera-bench: Tessera's speed and accuracy next to OpenBLAS and BLIS, and the peak FLOP
// rate. main() picks the subcommand (gemm by default) and maps errors to exit statuses;
// --help lists the subcommands before the default one's options, --version says the versions.
#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "args.hpp"
#include "gemm_command.hpp"
#include "gemv_command.hpp"
#include "multigpu_command.hpp"
#include "peak_command.hpp"
#include "spmm_command.hpp"
#include "spmv_command.hpp"
#include "tessera/tessera.h"
#include "tiny_command.hpp"
#include "tune_command.hpp"

namespace {

using tessera::bench::ArgCursor;
using tessera::bench::UsageError;

struct Subcommand {
    const char *name;
    const char *what; // one line for the top-level --help
    int (*run)(ArgCursor &args);
};

// Add a line here for each new subcommand; the first one is the default.
constexpr Subcommand kSubcommands[] = {
    {"gemm", "sgemm/dgemm beside OpenBLAS and BLIS (or cuBLAS), with errors",
     tessera::bench::run_gemm_command},
    {"gemv", "sgemv/dgemv GB/s beside OpenBLAS", tessera::bench::run_gemv_command},
    {"multigpu", "host-operand gemm on every GPU beside one GPU and cuBLASXt",
     tessera::bench::run_multigpu_command},
    {"peak", "the peak FLOP rate of this machine, alone", tessera::bench::run_peak_command},
    {"spmm", "sparse x dense blocks beside Eigen (or cuSPARSE SpMM)",
     tessera::bench::run_spmm_command},
    {"spmv", "sparse products in every format beside Eigen (or cuSPARSE)",
     tessera::bench::run_spmv_command},
    {"tiny", "ns per call of products up to 64 beside OpenBLAS and libxsmm",
     tessera::bench::run_tiny_command},
    {"tune", "time the CUDA gemm's kernel settings, write its tuning table",
     tessera::bench::run_tune_command},
};

// The commands, before the default command's own help.
void print_commands() {
    std::cout << "commands:";
    for (const auto &c : kSubcommands)
        std::cout << (&c == kSubcommands ? " " : ", ") << c.name
                  << (&c == kSubcommands ? " (the default)" : "");
    std::cout << "\n";
    size_t width = 0;
    for (const auto &c : kSubcommands) width = std::max(width, std::strlen(c.name));
    for (const auto &c : kSubcommands)
        std::cout << "  " << c.name << std::string(width + 2 - std::strlen(c.name), ' ') << c.what
                  << "\n";
    std::cout
        << "'tessera-bench COMMAND --help' gives a command's options; --version the versions.\n\n";
}

} // namespace

int main(int argc, char **argv) {
    const Subcommand *command = &kSubcommands[0];
    int first = 1;
    try {
        if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
            std::cout << "tessera-bench " << TSR_VERSION_MAJOR << '.' << TSR_VERSION_MINOR << '.'
                      << TSR_VERSION_PATCH << " (libtessera " << tsr_version() << ")\n";
            return 0;
        }
        if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0))
            print_commands();
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
