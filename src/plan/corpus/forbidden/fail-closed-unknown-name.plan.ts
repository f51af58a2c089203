// Fail closed: a name neither declared here nor an ES2023 built-in (a host global) is refused.
export const a = Buffer.from('x'); // expect: Buffer.from
export const b = someHostThing(); // expect: someHostThing
export const c = window.location; // expect: window.location
