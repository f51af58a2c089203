// Forbidden: fetch does network I/O.
export const page = fetch('https://example.com'); // expect: fetch
