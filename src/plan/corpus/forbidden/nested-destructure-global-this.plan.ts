// Forbidden alias: nested destructuring out of globalThis, and a renamed key.
const {
  Date: { now }, // expect: Date.now
  Math: { random: draw }, // expect: Math.random
} = globalThis;
export const values = [now(), draw()]; // expect: Date.now, Math.random
