/**
 * Masking secrets in what comes back from outside (a tool's answer, an error body, an MCP server's
 * words) before anything keeps it: every occurrence of a secret's value is replaced by
 * `[secret NAME]`, whatever encoding the other side echoed it in.
 *
 * Owns the forms a secret is matched in: as it is; character by character in any mix of JSON/JS
 * escapes (`\/`, `\u0041`, `\"`), HTML character references (`&#47;`, `&#x2F;`, `&sol;`, `&amp;`)
 * and percent-encoding (`%2F`, `+` for a space); and in base64 and base64url: encoded alone, whole
 * with its padding, and inside a longer encoding at any alignment (the characters that hold only
 * its bytes; a secret of at least 5 bytes). A parsed value is masked on its decoded strings, keys included, and
 * a number whose digits hold an all-digit secret (or equal it, leading zeros aside) becomes the
 * masked text. Pure: values in, values out; never keeps or logs a secret.
 */

/** Named HTML character references of the ASCII characters a secret may hold. */
const NAMED: Readonly<Record<string, readonly string[]>> = {
  '&': ['amp'],
  '<': ['lt'],
  '>': ['gt'],
  '"': ['quot'],
  "'": ['apos'],
  '/': ['sol'],
  '+': ['plus'],
  '=': ['equals'],
  ':': ['colon'],
  '#': ['num'],
  '%': ['percnt'],
  '?': ['quest'],
  '!': ['excl'],
  '@': ['commat'],
  _: ['lowbar'],
  '.': ['period'],
  ',': ['comma'],
  ';': ['semi'],
  $: ['dollar'],
  '\\': ['bsol'],
  '|': ['verbar', 'vert'],
  '~': ['tilde'],
  '*': ['ast', 'midast'],
  '(': ['lpar'],
  ')': ['rpar'],
  '[': ['lsqb', 'lbrack'],
  ']': ['rsqb', 'rbrack'],
  '{': ['lcub', 'lbrace'],
  '}': ['rcub', 'rbrace'],
  '^': ['Hat'],
  '`': ['grave'],
  ' ': ['nbsp'],
};

/** JSON/JS one-letter escapes. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '/': '\\\\/',
  '"': '\\\\"',
  '\\': '\\\\\\\\',
  '\n': '\\\\n',
  '\r': '\\\\r',
  '\t': '\\\\t',
  '\b': '\\\\b',
  '\f': '\\\\f',
  "'": "\\\\'",
};

const UTF8 = new TextEncoder();

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** `[0-9a-fA-F]`-insensitive hex of a number, zero-padded to `width`: `0*2[fF]`. */
const hexRe = (n: number, width = 0) =>
  n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (c) => `[${c}${c.toUpperCase()}]`);

/** Every way one code point may be written: itself, escaped, as a character reference, percent-encoded. */
function charForms(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const forms = [escapeRe(ch)];
  // \uXXXX (a surrogate pair beyond the BMP), any case.
  const units = cp > 0xffff ? [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)] : [cp];
  forms.push(units.map((u) => `\\\\[uU]${hexRe(u, 4)}`).join(''));
  if (cp < 0x100) forms.push(`\\\\x${hexRe(cp, 2)}`);
  const short = SHORT_ESCAPES[ch];
  if (short) forms.push(short);
  forms.push(`&#0*${cp};`, `&#[xX]0*${hexRe(cp)};`);
  for (const name of NAMED[ch] ?? []) forms.push(`&${name};`);
  forms.push([...UTF8.encode(ch)].map((b) => `%${hexRe(b, 2)}`).join(''));
  if (ch === ' ') forms.push('\\+');
  return `(?:${forms.join('|')})`;
}

/**
 * The base64 text that encodes `value` wherever it starts in a stream, for each of the three
 * byte alignments: only the characters every encoding of it shares (those holding its bytes alone).
 */
function base64Cores(value: string): string[] {
  const bytes = UTF8.encode(value);
  // The value encoded alone, tail and padding included, comes first: it is masked whole.
  const alone = btoa(String.fromCharCode(...bytes));
  const cores: string[] = alone.length > 4 ? [alone] : [];
  for (let lead = 0; lead < 3; lead++) {
    const binary = '\0'.repeat(lead) + String.fromCharCode(...bytes);
    const whole = Math.floor(binary.length / 3) * 4;
    const text = btoa(binary).slice(0, whole);
    // The first group mixes the lead bytes with the value's: dropped.
    const core = lead === 0 ? text : text.slice(4);
    if (core.length >= 4) cores.push(core);
  }
  return cores;
}

/** The pattern matching a secret's value in any of its forms (see above). */
function secretPattern(value: string): string {
  const chars = Array.from(value).map(charForms).join('');
  const b64 = base64Cores(value).flatMap((c) => {
    const url = c.replace(/\+/g, '-').replace(/\//g, '_');
    const forms = new Set([c, url, url.replace(/=+$/, '')]);
    return [...forms].map(escapeRe);
  });
  return [chars, ...b64].join('|');
}

/** Names by value, with the pattern of each (longest first: a value holding another is masked whole). */
export interface SecretMask {
  readonly text: (s: string) => string;
  readonly value: (v: unknown) => unknown;
}

const NO_MASK: SecretMask = { text: (s) => s, value: (v) => v };

/**
 * A mask for `secrets` (name → value; empty values mask nothing). `label` writes what replaces a
 * secret (`[secret NAME]` by default).
 */
export function secretMask(
  secrets: ReadonlyMap<string, string>,
  label: (name: string) => string = (name) => `[secret ${name}]`,
): SecretMask {
  const entries = [...secrets].filter(([, v]) => v.length > 0).sort((a, b) => b[1].length - a[1].length);
  if (entries.length === 0) return NO_MASK;
  const patterns = entries.map(([name, value]) => ({
    re: new RegExp(secretPattern(value), 'g'),
    label: label(name),
  }));
  // All-digit secrets, for numbers: the digits as written, and without leading zeros (a number drops them).
  const digits = entries.flatMap(([name, value]) =>
    /^\d+$/.test(value) ? [{ trimmed: value.replace(/^0+(?=\d)/, ''), label: label(name) }] : [],
  );
  const text = (s: string): string => {
    let out = s;
    for (const p of patterns) out = out.replace(p.re, p.label);
    return out;
  };
  const number = (n: number): unknown => {
    const written = String(n);
    const masked = text(written);
    if (masked !== written) return masked;
    const equal = digits.find((d) => d.trimmed === written);
    return equal ? equal.label : n;
  };
  const value = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (typeof v === 'number') return digits.length > 0 ? number(v) : v;
    if (Array.isArray(v)) return v.map(value);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v))
        Object.defineProperty(out, text(k), {
          value: value(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    }
    return v;
  };
  return { text, value };
}
