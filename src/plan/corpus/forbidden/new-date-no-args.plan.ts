// Forbidden: new Date() without an argument is the current time.
export const builtAt = new Date().toISOString(); // expect: new Date()
export const alsoNow = new Date(...[]); // expect: new Date()
