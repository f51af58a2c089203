// Forbidden: crypto.getRandomValues draws randomness.
export const bytes = crypto.getRandomValues(new Uint8Array(4)); // expect: crypto.getRandomValues
