// Forbidden: importing node:worker_threads (file or network I/O, processes or threads); its use is refused too.
import { Worker } from 'node:worker_threads'; // expect: import "node:worker_threads"

export const used = typeof Worker; // expect: worker_threads.Worker
