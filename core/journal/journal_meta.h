/* Internal header: not installed. The journal's metadata record read back
 * (journal.h, SL_JRN_META): the run's /metadata noted at Init, and the batch
 * job of the journal's process. */
#ifndef SL_JOURNAL_META_H
#define SL_JOURNAL_META_H

#include "journal.h"
#include "journal_file.h"
#include "run.h"

/* info's job, step and cluster from the record ("" when it has none). */
void sl_jrn_meta_info(const jfile *j, sl_jrn_info *info);
/* The record's fields into run->meta: user, working_directory, mpi_size,
 * omp_num_threads and the SLURM_* variables. */
void sl_jrn_meta_run(const jfile *j, sl_run *run);

#endif
