// Forbidden: Math.random() draws randomness.
export const jitter = Math.random() * 10; // expect: Math.random
export const optional = Math?.random?.(); // expect: Math.random
