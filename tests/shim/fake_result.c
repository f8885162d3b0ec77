/* fake_result OUTPUT: what the shim's unit tests' fake writer ends with
 * (shim_test_util.h, TU_COPY_WRITER): OUTPUT made a file that starts as an
 * HDF5 file does, then the writer's proof for it (SCOPE_LIKWID_WRITE_KEY,
 * core/trust/mac.h) and its name on stdout, as scope-likwid-write prints them.
 * The run itself is in OUTPUT.wire, a copy of the rescue file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mac.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, SL_HDF5_SIGNATURE, 8) != 8 || close(fd) != 0)
        return 1;
    const char *hex = getenv(SL_WRITE_KEY_ENV);
    sl_mac_key key;
    struct stat st;
    if (hex && sl_mac_key_parse(hex, &key) == 0 && stat(argv[1], &st) == 0) {
        char tag[SL_MAC_TAG_HEX + 1];
        sl_mac_tag_hex(sl_mac_file(&key, &st), tag);
        printf("%s%s\n", SL_PROOF_PREFIX, tag);
    }
    printf("%s\n", argv[1]);
    return 0;
}
