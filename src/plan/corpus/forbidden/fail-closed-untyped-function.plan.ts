// Fail closed: a value of the untyped Function type can be the Function constructor.
const ctor: Function = (() => 0).constructor; // expect: .constructor
export const v = ctor('return 1'); // expect: ctor()
export const w = Date.prototype.constructor.now(); // expect: .constructor
export const callIt = (g: Function) => g('return 1'); // expect: g()
