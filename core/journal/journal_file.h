/* Internal header: not installed. A journal file as the reader sees it
 * (journal.h has the format): mapped read-only, its header checked, and
 * the address map of the pieces the writing process mapped it in. */
#ifndef SL_JOURNAL_FILE_H
#define SL_JOURNAL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "journal.h"

/* A piece of the file as the writing process mapped it. */
typedef struct jpiece {
    uint64_t addr;
    size_t off, len;
} jpiece;

typedef struct jfile {
    const unsigned char *p;
    size_t size;
    const sl_jrn_header *h;
    jpiece *pieces;             /* sorted by addr */
    size_t npieces;
} jfile;

/* Whether j (p, size, h set) holds a valid header; 0 or -EINVAL with a
 * diagnostic naming the file. */
int sl_jf_check(const jfile *j, const char *name, sl_diag *d);
/* Maps the file at path read-only and checks it; 0 or -errno. */
int sl_jf_open(const char *path, jfile *j, sl_diag *d);
void sl_jf_close(jfile *j);
/* The pieces, from the header and the PIECE records: 0 or -ENOMEM (the
 * caller frees j->pieces). */
int sl_jf_pieces(jfile *j);
/* The file offset of an address of the writing process holding n bytes
 * (all in one piece), or SIZE_MAX when it is not inside the file. */
size_t sl_jf_off(const jfile *j, uint64_t addr, size_t n);

#endif
