// Forbidden: setInterval.
export const handle = setInterval(() => undefined, 10); // expect: setInterval
