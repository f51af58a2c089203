// Forbidden alias: Date copied into a variable; its members still resolve to DateConstructor.
const D = Date;
export const at = D.now(); // expect: Date.now
export const fresh = new D(); // expect: new Date()
