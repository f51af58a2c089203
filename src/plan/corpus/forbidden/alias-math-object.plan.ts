// Forbidden alias: Math copied into a variable; m.random still resolves to Math.random.
const m = Math;
export const value = m.random(); // expect: Math.random
