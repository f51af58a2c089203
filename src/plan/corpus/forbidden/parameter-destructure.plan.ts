// Forbidden alias: a parameter typed as Math; its members still resolve to Math.random.
function roll(m: Math): number {
  return m.random(); // expect: Math.random
}
function stamp({ now }: DateConstructor): number { // expect: Date.now
  return now(); // expect: Date.now
}
export const fns = [roll, stamp];
