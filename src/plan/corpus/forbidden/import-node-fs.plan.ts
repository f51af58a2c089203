// Forbidden: importing node:fs (file or network I/O, processes or threads); its use is refused too.
import { readFileSync } from 'node:fs'; // expect: import "node:fs"

export const used = typeof readFileSync; // expect: fs.readFileSync
