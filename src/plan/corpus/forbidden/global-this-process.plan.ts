// Forbidden alias: host globals reached through globalThis.
export const region = globalThis.process.env.REGION; // expect: process.env
const { fetch: get } = globalThis; // expect: fetch
export const page = get;
