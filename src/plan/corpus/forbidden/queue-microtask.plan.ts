// Forbidden: queueMicrotask.
queueMicrotask(() => undefined); // expect: queueMicrotask
export {};
