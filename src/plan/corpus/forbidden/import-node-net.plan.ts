// Forbidden: importing node:net (file or network I/O, processes or threads); its use is refused too.
import { connect } from 'node:net'; // expect: import "node:net"

export const used = typeof connect; // expect: net.connect
