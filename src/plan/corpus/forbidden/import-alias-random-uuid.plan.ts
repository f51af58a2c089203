// Forbidden alias: randomUUID imported under another name; the import and every use are found.
import { randomUUID as u } from 'node:crypto'; // expect: import "node:crypto"

export const id = u(); // expect: crypto.randomUUID
