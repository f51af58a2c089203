// Forbidden: the global crypto (Web Crypto) draws randomness.
export const id = crypto.randomUUID(); // expect: crypto.randomUUID
export const viaGlobalThis = globalThis.crypto.randomUUID(); // expect: crypto.randomUUID
