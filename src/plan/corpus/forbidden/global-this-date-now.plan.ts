// Forbidden alias: Date.now reached through globalThis, with a dot and with a literal key.
export const a = globalThis.Date.now(); // expect: Date.now
export const b = globalThis['Date']['now'](); // expect: Date.now
