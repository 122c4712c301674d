/* Test helper: says whether a backend can run here. Exit status 0 when it can, 77 (CTest's skip
 * code in these tests) when it cannot, with the library's reason; 2 on a usage error. */
#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

int main(int argc, char **argv) {
    static const char *names[] = {"auto", "cpu", "cuda", "reference"};
    if (argc != 2) {
        fprintf(stderr, "usage: %s auto|cpu|cuda|reference\n", argv[0]);
        return 2;
    }
    for (int b = 0; b < 4; ++b) {
        if (strcmp(argv[1], names[b]) != 0) continue;
        int available = 0;
        tsr_status st = tsr_backend_available((tsr_backend)b, &available);
        if (st != TSR_SUCCESS) {
            fprintf(stderr, "tsr_backend_available: %s: %s\n", tsr_status_string(st),
                    tsr_last_error());
            return 2;
        }
        if (!available) {
            printf("backend %s is not available here: %s\n", names[b], tsr_last_error());
            return 77;
        }
        printf("backend %s is available\n", names[b]);
        return 0;
    }
    fprintf(stderr, "%s: unknown backend '%s'\n", argv[0], argv[1]);
    return 2;
}
