// Forbidden: re-exporting a module is importing it.
export { randomUUID } from 'node:crypto'; // expect: import "node:crypto"
