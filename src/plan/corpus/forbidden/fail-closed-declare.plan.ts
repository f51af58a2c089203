// Fail closed: `declare` promises a value the module does not define; the statement and the use are found.
declare const hostClock: { now(): number }; // expect: declare
export const t = hostClock.now(); // expect: hostClock
declare global { // expect: declare
  var hostRandom: () => number;
}
export const r = hostRandom(); // expect: hostRandom
