// Forbidden: importing node:child_process (file or network I/O, processes or threads); its use is refused too.
import { execSync } from 'node:child_process'; // expect: import "node:child_process"

export const used = typeof execSync; // expect: child_process.execSync
