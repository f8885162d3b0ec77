/* A later cycle's journal: the last one's pieces copied into a new file
 * and mapped from it at the same addresses. */
#include "journal_map.h"
#include "trusted_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The file of a later cycle's journal: created as at Init (beside its
 * result, else $TMPDIR or /tmp), empty, not mapped; its descriptor. */
static int renew_file(const char *output, pid_t pid, char **path_out)
{
    int rc = -ENOENT;
    for (int i = -1; i < 2 && rc < 0; i++) {
        if (i >= 0 && !sl_spare_dir(i))
            continue;
        char *path = sl_journal_name(i < 0 ? NULL : sl_spare_dir(i), output, pid);
        if (!path || strlen(path) >= sizeof jpath) {
            free(path);
            rc = -ENAMETOOLONG;
            continue;
        }
        int fd = sl_at_create_private(path, O_RDWR);
        struct stat st;
        if (fd < 0) {
            rc = -errno;
        } else if (fstat(fd, &st) != 0 || fchmod(fd, SL_MODE_PRIVATE) != 0) {
            rc = -errno;
            close(fd);
            sl_at_unlink(path);
        } else {
            *path_out = path;   /* on the heap: Close may run on a small stack */
            path = NULL;
            rc = fd;
        }
        free(path);
    }
    return rc;
}

/* Each piece into the new file at its offset, then mapped from there at
 * the address it had: a copy mapped elsewhere first, moved over the old
 * mapping in one step (mremap), so that no address is ever unmapped. 0 or
 * -errno; on failure the pieces already moved hold the same bytes. */
static int renew_pieces(int fd)
{
    size_t used = (size_t)jh->used;
    for (size_t i = 0; i < npieces; i++) {
        struct mapped_piece *p = &pieces[i];
        int rc = back(fd, p->off, p->len);
        if (rc != 0)
            return rc;
        void *copy = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)p->off);
        if (copy == MAP_FAILED)
            return -errno;
        /* Only what was handed out: the rest of the piece is zeros in both
         * files (its pages never touched, never written). */
        size_t n = used <= p->off ? 0 : used - p->off < p->len ? used - p->off : p->len;
        memcpy(copy, p->at, n);
        if (mremap(copy, p->len, p->len, MREMAP_MAYMOVE | MREMAP_FIXED, p->at) == MAP_FAILED) {
            rc = -errno;
            munmap(copy, p->len);
            return rc;
        }
    }
    return 0;
}

int sl_journal_renew(const sl_journal_in *in, int64_t cycle, int64_t outside_tables,
                     int64_t outside_entries)
{
    if (!jh || !jclosed || getpid() != (pid_t)jh->pid)
        return -ENOENT;     /* none before (or not ours): none now, as at Init */
    if (npieces > MAX_PIECES)
        return -E2BIG;
    pthread_mutex_lock(&jlock);
    char *path = NULL;
    int fd = renew_file(in->output, in->pid, &path);
    int rc = fd < 0 ? fd : renew_pieces(fd);
    struct stat st;
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = -errno;
    if (rc != 0) {
        if (fd >= 0) {
            close(fd);
            sl_at_unlink(path);
        }
        free(path);
        pthread_mutex_unlock(&jlock);
        return rc;
    }
    keep_fd(fd, &st);
    snprintf(jpath, sizeof jpath, "%s", path);
    free(path);
    /* The header names this cycle; the tables it holds are this cycle's
     * (zeroed at its Init). */
    sl_jrn_header *h = jh;
    snprintf(h->output, sizeof h->output, "%s", in->output);
    h->origin_unix_ns = in->origin_unix_ns;
    sl_rt_clock_pairs(&h->tick0, &h->ns0, &h->tick1, &h->ns1);
    h->cycle = cycle;
    h->batch_first = 0;
    h->signo = 0;
    h->signal_ns = 0;
    h->rescue[0] = '\0';
    h->outside_tables += outside_tables;
    h->outside_entries += outside_entries;
    atomic_store(&jclosed, 0);
    __atomic_store_n(&h->state, SL_JRN_RUNNING, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&jlock);
    return 0;
}

void sl_journal_note_cycles(int64_t batch_first, int64_t cycle)
{
    sl_jrn_header *h = jh;
    if (!h || jclosed || getpid() != (pid_t)h->pid)
        return;
    __atomic_store_n(&h->cycle, cycle, __ATOMIC_RELAXED);
    __atomic_store_n(&h->batch_first, batch_first, __ATOMIC_RELEASE);
}

int sl_journal_holds(const void *p)
{
    const char *c = p;
    size_t n = npieces < MAX_PIECES ? npieces : MAX_PIECES;
    for (size_t i = 0; i < n; i++)
        if (c >= pieces[i].at && c < pieces[i].at + pieces[i].len)
            return 1;
    return 0;
}
