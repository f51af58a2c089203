/**
 * What a plan module may not touch, and why: the one table behind every `keel check` message.
 *
 * Owns three lookups: ECMAScript built-ins keyed by the fully qualified name of the declaration
 * the type checker resolves them to (`DateConstructor.now`), host globals keyed by name (they are
 * never declared for the checker, so they arrive unresolved), and modules keyed by specifier.
 * It decides nothing about syntax or aliases; the rules in `check-references.ts` do.
 */

export interface Rule {
  /** The API as a person would name it: `Date.now`, `crypto.randomUUID`, `import "node:fs"`. */
  readonly what: string;
  /** Why it is refused and what to use instead. */
  readonly why: string;
}

/** Why a kind of API is refused, and what to do instead. */
interface Reason {
  readonly because: string;
  readonly instead: string;
}

const BUILD_ONLY = 'a plan module only builds data';
const CLOCK: Reason = {
  because: 'it reads the host clock, so each load would yield another spec',
  instead: 'use `{{clock.now}}` in step args, which Keel records in the ledger',
};
const RANDOM: Reason = {
  because: 'it draws randomness, so each load would yield another spec',
  instead: 'use `{{random.float}}` or `{{id.new}}` in step args, which Keel records in the ledger',
};
const PROCESS: Reason = {
  because: 'it reads the host process (environment, arguments, clock)',
  instead: 'list variable names under `env:` and use `{{env.NAME}}` in step args, which Keel records',
};
const TIMER: Reason = {
  because: 'timers run code later, on the host clock',
  instead: 'build the spec synchronously and return it',
};
const NETWORK: Reason = {
  because: 'it does network I/O',
  instead: `${BUILD_ONLY}; call a registered tool from a step`,
};
const FILES: Reason = {
  because: 'it does file I/O',
  instead: `${BUILD_ONLY}; write the content into the module`,
};
const PROCESSES: Reason = { because: 'it starts processes or threads', instead: BUILD_ONLY };
const CODE: Reason = {
  because: 'it runs code from a string, which the check cannot see',
  instead: 'write the code',
};
const GC: Reason = { because: 'it observes garbage collection, whose timing varies', instead: BUILD_ONLY };
const LOCALE: Reason = {
  because: 'its results depend on the host locale and time zone',
  instead: 'format values yourself, in UTC',
};
const HOST: Reason = { because: 'it reads the host machine', instead: BUILD_ONLY };
const MODULES: Reason = {
  because: 'a plan module is evaluated alone, without a module loader',
  instead: 'import only `defineWorkflow` (and types) from "keel/plan"',
};
const GLOBAL: Reason = { because: 'it is another name for the host global object', instead: BUILD_ONLY };

const why = (r: Reason): string => `${r.because}; ${r.instead}`;

/** Built-ins of the TypeScript ES2023 library, by the qualified name of their declaration. */
const LIB_RULES: Readonly<Record<string, Rule>> = {
  'DateConstructor.now': { what: 'Date.now', why: why(CLOCK) },
  'Math.random': { what: 'Math.random', why: why(RANDOM) },
  eval: { what: 'eval', why: why(CODE) },
  Function: { what: 'Function', why: why(CODE) },
  WeakRef: { what: 'WeakRef', why: why(GC) },
  FinalizationRegistry: { what: 'FinalizationRegistry', why: why(GC) },
  Intl: { what: 'Intl', why: why(LOCALE) },
};

export const NEW_DATE_RULE: Rule = {
  what: 'new Date()',
  why: `${why(CLOCK)} (\`new Date(<value>)\` with an explicit value is fine)`,
};
export const CALL_DATE_RULE: Rule = { what: 'Date()', why: `called as a function, ${why(CLOCK)}` };

/** Host globals by name. None is declared for the checker, so any reference arrives unresolved. */
const HOST_GLOBALS: Readonly<Record<string, Reason>> = {
  process: PROCESS,
  setTimeout: TIMER,
  setInterval: TIMER,
  setImmediate: TIMER,
  queueMicrotask: TIMER,
  clearTimeout: TIMER,
  clearInterval: TIMER,
  clearImmediate: TIMER,
  requestAnimationFrame: TIMER,
  fetch: NETWORK,
  XMLHttpRequest: NETWORK,
  WebSocket: NETWORK,
  EventSource: NETWORK,
  navigator: HOST,
  crypto: RANDOM,
  performance: CLOCK,
  require: MODULES,
  module: MODULES,
  exports: MODULES,
  __dirname: FILES,
  __filename: FILES,
  Buffer: HOST,
  global: GLOBAL,
  window: GLOBAL,
  self: GLOBAL,
};

/** Modules by name (without `node:`), first path segment; anything else gets the generic reason. */
const MODULE_REASONS: Readonly<Record<string, Reason>> = {
  fs: FILES,
  net: NETWORK,
  http: NETWORK,
  https: NETWORK,
  http2: NETWORK,
  dgram: NETWORK,
  dns: NETWORK,
  tls: NETWORK,
  child_process: PROCESSES,
  worker_threads: PROCESSES,
  cluster: PROCESSES,
  crypto: RANDOM,
  timers: TIMER,
  perf_hooks: CLOCK,
  process: PROCESS,
  os: HOST,
  vm: CODE,
};

/**
 * Member names that, read from a value the checker knows nothing about (`any`), could be one of
 * the APIs above. Reading them is reported; reading other names of plain data is not.
 */
const SENSITIVE_MEMBERS = new Set([
  ...Object.keys(HOST_GLOBALS),
  'now',
  'random',
  'randomUUID',
  'getRandomValues',
  'randomBytes',
  'randomInt',
  'env',
  'hrtime',
  'uptime',
  'Date',
  'Math',
  'eval',
  'Function',
  'constructor',
  'globalThis',
]);

/** The rule for a built-in resolved to a default-library declaration, if it is refused. */
export function libRule(qualifiedName: string): Rule | undefined {
  return Object.hasOwn(LIB_RULES, qualifiedName) ? LIB_RULES[qualifiedName] : undefined;
}

/** The rule for an unresolved (host) global, optionally read through one member (`process.env`). */
export function hostGlobalRule(name: string, member?: string): Rule {
  const what = member === undefined ? name : `${name}.${member}`;
  if (Object.hasOwn(HOST_GLOBALS, name)) return { what, why: why(HOST_GLOBALS[name]!) };
  return {
    what,
    why: 'it is neither declared in this module nor an ECMAScript built-in, so the check cannot tell what it is; plan modules run with no host globals',
  };
}

function moduleKey(specifier: string): string {
  const bare = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  return bare;
}

/** The rule for importing (or re-exporting) a module. */
export function importRule(specifier: string): Rule {
  const first = moduleKey(specifier).split('/')[0] ?? '';
  const kind = Object.hasOwn(MODULE_REASONS, first) ? `${MODULE_REASONS[first]!.because}, and ` : '';
  return { what: `import ${JSON.stringify(specifier)}`, why: `${kind}${why(MODULES)}` };
}

/** The rule for using a binding imported from a module: `crypto.randomUUID`, `fs.readFileSync`. */
export function importedBindingRule(specifier: string, imported: string | undefined): Rule {
  const key = moduleKey(specifier);
  const first = key.split('/')[0] ?? '';
  const what = imported === undefined ? key : `${key}.${imported}`;
  return { what, why: why(Object.hasOwn(MODULE_REASONS, first) ? MODULE_REASONS[first]! : MODULES) };
}

/** True for the host globals the table knows by name (`process`, `setTimeout`, `fetch` ...). */
export function isHostGlobal(name: string): boolean {
  return Object.hasOwn(HOST_GLOBALS, name);
}

export function isSensitiveMember(name: string): boolean {
  return SENSITIVE_MEMBERS.has(name);
}
