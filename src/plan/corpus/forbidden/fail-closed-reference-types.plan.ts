/// <reference types="node" /> // expect: /// <reference>
// Fail closed: a reference directive brings host typings in; process then resolves, and is still refused.
export const region = process.env.REGION; // expect: process.env
