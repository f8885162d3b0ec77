/* Internal header: not installed. For a program that owns its process (the
 * CLI, the writer helper): libhdf5 prints nothing on stderr, ever. Each
 * entry point of h5/ silences it around its own calls and restores the
 * caller's handler (h5_err.c), which is right for a library; but libhdf5
 * also prints at exit ("HDF5: infinite loop closing library" after a damaged
 * file) when printing is on, and a tool says what is wrong in its own
 * one-line messages. */
#ifndef SL_H5_QUIET_H
#define SL_H5_QUIET_H

void sl_h5_quiet_process(void);

#endif
