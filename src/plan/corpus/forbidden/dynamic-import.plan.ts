// Forbidden: import() loads a module at run time.
export const fs = await import('node:fs'); // expect: import()
