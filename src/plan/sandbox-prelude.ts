/**
 * The script run inside the sandbox before a plan module: it removes every source of
 * nondeterminism QuickJS has and installs `defineWorkflow`.
 *
 * `Math.random`, `WeakRef` and `FinalizationRegistry` are deleted, and host names (process, timers,
 * fetch ...) are asserted absent. QuickJS's own Date reads the host clock and, through Emscripten,
 * the host time zone, so it is replaced by a Date that only knows explicit UTC instants. The
 * script returns the original `JSON.stringify`, so the guest cannot change how its spec is read.
 */

/** Names deleted from the guest's global object (most never exist in QuickJS; deleting is the proof). */
export const ABSENT_GLOBALS = [
  'process',
  'require',
  'module',
  'exports',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
  'performance',
  'crypto',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WeakRef',
  'FinalizationRegistry',
  'os',
  'std',
] as const;

export const SANDBOX_PRELUDE = `
(() => {
  const g = globalThis;
  const stringify = JSON.stringify;
  const HostDate = g.Date;
  const hostParse = HostDate.parse;
  const ISO = /^[+-]?\\d{4,6}-\\d{2}-\\d{2}(?:T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}:\\d{2}))?$/;
  const refuse = (what, why) => {
    throw new TypeError(what + ' is not available in a plan module: ' + why);
  };
  const CLOCK = 'it reads the clock; use {{clock.now}} in step args';
  const LOCAL = 'it depends on the host time zone; use the UTC form';
  const TIME = Symbol('time');
  const timeOf = (args) => {
    if (args.length === 0) refuse('new Date()', CLOCK);
    if (args.length > 1) refuse('new Date(year, month, ...)', 'it uses the host time zone; use new Date(Date.UTC(year, month, ...))');
    const v = args[0];
    if (typeof v === 'number') return new HostDate(v).getTime();
    if (typeof v === 'string') {
      if (!ISO.test(v)) refuse('new Date(' + stringify(v) + ')', 'only ISO 8601 dates, and date-times ending in Z or an offset, read the same in every time zone');
      return hostParse(v);
    }
    if (v !== null && typeof v === 'object' && TIME in v) return v[TIME];
    return refuse('new Date(' + typeof v + ')', 'pass milliseconds since 1970 or an ISO 8601 string');
  };
  function Date(...args) {
    if (new.target === undefined) refuse('Date()', CLOCK);
    Object.defineProperty(this, TIME, { value: timeOf(args) });
  }
  const proto = Date.prototype;
  const host = (d) => {
    if (d === null || typeof d !== 'object' || !(TIME in d)) throw new TypeError('this is not a Date');
    return new HostDate(d[TIME]);
  };
  const define = (target, name, value) =>
    Object.defineProperty(target, name, { value, writable: true, configurable: true });
  define(proto, 'getTime', function () { return host(this).getTime(); });
  define(proto, 'valueOf', function () { return host(this).getTime(); });
  const utc = ['toISOString', 'toUTCString', 'getUTCFullYear', 'getUTCMonth', 'getUTCDate', 'getUTCDay',
    'getUTCHours', 'getUTCMinutes', 'getUTCSeconds', 'getUTCMilliseconds'];
  for (const name of utc) define(proto, name, function () { return host(this)[name](); });
  const valid = (d) => !Number.isNaN(host(d).getTime());
  define(proto, 'toJSON', function () { return valid(this) ? host(this).toISOString() : null; });
  define(proto, 'toString', function () { return valid(this) ? host(this).toISOString() : 'Invalid Date'; });
  define(proto, Symbol.toPrimitive, function (hint) { return hint === 'number' ? this.getTime() : this.toString(); });
  const local = ['getFullYear', 'getMonth', 'getDate', 'getDay', 'getHours', 'getMinutes', 'getSeconds',
    'getMilliseconds', 'getTimezoneOffset', 'getYear', 'toDateString', 'toTimeString', 'toLocaleString',
    'toLocaleDateString', 'toLocaleTimeString'];
  for (const name of local) define(proto, name, function () { return refuse('Date.prototype.' + name, LOCAL); });
  define(Date, 'UTC', HostDate.UTC);
  define(Date, 'parse', (s) =>
    typeof s === 'string' && ISO.test(s) ? hostParse(s) : refuse('Date.parse(' + stringify(String(s)) + ')', LOCAL));
  define(g, 'Date', Date);
  delete Math.random;
  for (const name of ${JSON.stringify(ABSENT_GLOBALS)}) delete g[name];
  Object.defineProperty(g, 'defineWorkflow', { value: function defineWorkflow(spec) { return spec; } });
  return stringify;
})()
`;
