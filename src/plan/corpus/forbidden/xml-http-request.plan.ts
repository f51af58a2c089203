// Forbidden: XMLHttpRequest does network I/O.
export const xhr = new XMLHttpRequest(); // expect: XMLHttpRequest
