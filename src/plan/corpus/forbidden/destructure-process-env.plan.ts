// Forbidden alias: destructuring process; the process reference itself is the finding.
const { env } = process; // expect: process
export const region = env.REGION;
