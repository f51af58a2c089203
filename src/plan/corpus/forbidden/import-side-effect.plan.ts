// Forbidden: a side-effect import runs another module.
import './setup.ts'; // expect: import "./setup.ts"

export {};
