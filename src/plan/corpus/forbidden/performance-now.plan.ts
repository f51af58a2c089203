// Forbidden: performance.now() reads the host's high-resolution clock.
export const t0 = performance.now(); // expect: performance.now
