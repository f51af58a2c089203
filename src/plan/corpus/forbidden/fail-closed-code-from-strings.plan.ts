// Fail closed: code built from strings cannot be checked.
export const a = eval('1 + 1'); // expect: eval
export const b = new Function('return 1'); // expect: Function
export const c = (() => 0).constructor('return 1')(); // expect: .constructor
