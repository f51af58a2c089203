// Forbidden: randomBytes from node:crypto draws randomness (the import itself is refused too).
import { randomBytes } from 'node:crypto'; // expect: import "node:crypto"

export const salt = randomBytes(8).toString('hex'); // expect: crypto.randomBytes
