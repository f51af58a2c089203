// Forbidden alias: Math.random read into a variable, then called through it.
const r = Math.random; // expect: Math.random
export const value = r(); // expect: Math.random
