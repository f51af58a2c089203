// Forbidden: importing node:http (file or network I/O, processes or threads); its use is refused too.
import { get } from 'node:http'; // expect: import "node:http"

export const used = typeof get; // expect: http.get
