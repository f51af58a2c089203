// Forbidden: importing fs (file or network I/O, processes or threads); its use is refused too.
import { readFileSync } from 'fs'; // expect: import "fs"

export const used = typeof readFileSync; // expect: fs.readFileSync
