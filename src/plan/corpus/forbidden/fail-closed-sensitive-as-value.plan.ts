// Fail closed: Math, Date and globalThis passed around as values hide which member is used.
export const descriptor = Object.getOwnPropertyDescriptor(Math, 'random'); // expect: Math as a value
export const built = Reflect.construct(Date, []); // expect: Date as a value
const widened: { random(): number } = Math; // expect: Math as a value
export const value = widened.random();
export const cast = (Math as unknown as { random(): number }).random(); // expect: Math as a value
export const all = Object.values(globalThis); // expect: globalThis as a value
export class Clock extends Date {} // expect: Date as a value
const { ...rest } = Math; // expect: ...rest of Math
export const restValue = rest;
