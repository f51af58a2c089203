// Forbidden: setImmediate.
setImmediate(() => undefined); // expect: setImmediate
export {};
