// Forbidden: importing fs/promises (file or network I/O, processes or threads); its use is refused too.
import { readFile } from 'fs/promises'; // expect: import "fs/promises"

export const used = typeof readFile; // expect: fs/promises.readFile
