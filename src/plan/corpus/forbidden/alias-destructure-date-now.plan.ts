// Forbidden alias: destructuring Date.now, then calling it. Both the read and the call are found.
const { now } = Date; // expect: Date.now
export const at = now(); // expect: Date.now
