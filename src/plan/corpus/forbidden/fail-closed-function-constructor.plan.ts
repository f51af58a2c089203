// Fail closed (issue 26): every road to the Function constructor, however the key is spelled.
type Fn = (code: string) => () => unknown;
const f = () => 0;
const key = ['con', 'structor'].join('');
const named = 'constructor';
export const a = f['constr' + 'uctor']; // expect: f[<computed>]
export const b = f[named]; // expect: .constructor
export const c = f[`constructor`]; // expect: .constructor
export const d = f?.constructor; // expect: .constructor
export const e = Reflect.get(f, 'constructor'); // expect: Reflect.get("constructor")
export const g = Reflect.get(f, key); // expect: Reflect.get(<computed>)
export const h = Object.getPrototypeOf(function () {}).constructor; // expect: .constructor
const { constructor: destructured } = f; // expect: .constructor
export const i = destructured;
export const j = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(f), 'constructor'); // expect: Object.getOwnPropertyDescriptor("constructor")
export const k = Object.getOwnPropertyDescriptors(Object.getPrototypeOf(f)); // expect: Object.getOwnPropertyDescriptors
// Through a cast that types the table as functions: the computed read is the finding.
const table = {} as Record<string, Record<string, Fn>>;
export const l = table[key]![key]!('return 1')(); // expect: table[key]![<computed>]
const loose: Record<string, unknown> = { f };
export const m = (loose[key] as unknown as Fn)('return 1'); // expect: a cast to Fn
const isFn = (v: unknown): v is Fn => typeof v === 'function'; // expect: a type guard for Fn
export const n = isFn(loose[key]) ? 1 : 0;
// An any where a function is expected: the assignment, the argument and the return are findings.
export const p: Fn = JSON.parse('null'); // expect: JSON.parse('null') as a function
const run = (fn: Fn) => fn;
export const q = run(JSON.parse('null')); // expect: JSON.parse('null') as a function
export const r = (): Fn => JSON.parse('null'); // expect: JSON.parse('null') as a function
