/* Internal header: not installed. Checks made on a result file before
 * libhdf5 is trusted with it: libhdf5 1.10.8 crashes or loops on some
 * damaged files (docs/RELIABILITY.md), so what it cannot check, we do. */
#ifndef SL_H5_GUARD_H
#define SL_H5_GUARD_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* The file's bytes: HDF5 signature at 0, 8-byte addresses and lengths, no
 * base offset (what every HDF5 file we write has), and every global heap
 * collection (where variable-length strings live; no checksum) sound: its
 * size inside the file, its objects inside it, each a string as we write
 * them (no NUL, zero padding). 0, or -EINVAL after
 * a diag line "file: damaged: ...". Remembers len for the size checks. */
int sl_h5_guard_image(const void *buf, size_t len, const char *file, sl_diag *diag);
/* The same on a file (mapped, not read). */
int sl_h5_guard_file(const char *path, sl_diag *diag);
/* Forgets the size remembered (the file is closed). */
void sl_h5_guard_done(void);

/* A link access list under which at most one soft link is followed (no
 * loops). External links are never followed in a process that called one
 * of the guards above: their link class is unregistered (an external link
 * to a FIFO blocks H5Oopen forever; our files have none). */
hid_t sl_h5_guard_lapl(void);
/* 1 when link name of loc is a hard link (0 for any other, or absent). */
int sl_h5_guard_hard(hid_t loc, const char *name);

/* 0 when the dataset's n elements (read as 8 bytes each) fit what the
 * file can hold: up to 8192 always; beyond, its storage inside the file
 * and n x 8 no more than 64 x the storage + 64 KiB. Else -EINVAL (nothing
 * reported: the caller says which object). */
int sl_h5_guard_dataset(hid_t d, uint64_t n);
/* 0 when an attribute's n elements of its file type fit in the file (up
 * to 4096 always). */
int sl_h5_guard_attr(hid_t a, uint64_t n);

/* 0 when every object under loc/name keeps its attributes in its header
 * (compact storage, as our writer does), so that H5Ocopy may copy it; 1
 * when one has dense attribute storage: libhdf5 1.10.8's H5Ocopy crashes
 * copying dense variable-length string attributes (a NULL call under
 * H5T__conv_vlen), so merge copies such a tree by value instead
 * (sl_h5_copy_by_value); -EINVAL when an object cannot be visited.
 * Decided from the bytes when the file guarded last (not yet done) holds
 * no v2 B-tree of attribute names; else by walking every object under
 * loc/name. */
int sl_h5_guard_copyable(hid_t loc, const char *name);

#endif
