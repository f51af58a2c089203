// Forbidden: require loads a host module.
export const fs = require('node:fs'); // expect: require
