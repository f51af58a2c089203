// Fail closed: a value of the untyped Function type can be the Function constructor.
const ctor: Function = (() => 0).constructor;
export const v = ctor('return 1'); // expect: ctor()
export const w = Date.prototype.constructor.now(); // expect: Date.prototype.constructor.now()
