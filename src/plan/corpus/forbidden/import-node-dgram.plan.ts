// Forbidden: importing node:dgram (file or network I/O, processes or threads); its use is refused too.
import { createSocket } from 'node:dgram'; // expect: import "node:dgram"

export const used = typeof createSocket; // expect: dgram.createSocket
