// Forbidden alias: a namespace import of node:crypto; the member used is named in the finding.
import * as c from 'node:crypto'; // expect: import "node:crypto"

export const id = c.randomUUID(); // expect: crypto.randomUUID
