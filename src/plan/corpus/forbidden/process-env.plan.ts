// Forbidden: process.env reads the host environment; use `env:` and {{env.NAME}} instead.
export const region = process.env.REGION ?? 'eu'; // expect: process.env
