// Fail closed: a computed key on Math, Date or globalThis could name any member.
const name = ['ran', 'dom'].join('');
export const b = globalThis['Da' + 'te']; // expect: globalThis[<computed>]
export const c = Math[name as 'max'](1); // expect: Math[<computed>]
const { [name]: picked } = Math as never; // expect: Math as a value
export const d = picked;
export const e = Date[name as keyof DateConstructor]; // expect: Date[<computed>]
