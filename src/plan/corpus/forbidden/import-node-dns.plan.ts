// Forbidden: importing node:dns (file or network I/O, processes or threads); its use is refused too.
import { lookup } from 'node:dns'; // expect: import "node:dns"

export const used = typeof lookup; // expect: dns.lookup
