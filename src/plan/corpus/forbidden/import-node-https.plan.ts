// Forbidden: importing node:https (file or network I/O, processes or threads); its use is refused too.
import { get } from 'node:https'; // expect: import "node:https"

export const used = typeof get; // expect: https.get
