// Forbidden alias: element access with a literal key, or a key of a literal type.
export const a = Math['random'](); // expect: Math.random
const key = 'random';
export const b = Math[key](); // expect: Math.random
