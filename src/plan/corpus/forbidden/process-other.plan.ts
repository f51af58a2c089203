// Forbidden: any access to process, not only process.env.
export const args = process.argv.slice(2); // expect: process.argv
export const started = process.hrtime.bigint(); // expect: process.hrtime
export const p = process; // expect: process
