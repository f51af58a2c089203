// Forbidden: timers run code later, on the host clock.
setTimeout(() => undefined, 10); // expect: setTimeout
export {};
