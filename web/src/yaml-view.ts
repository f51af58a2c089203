/**
 * A spec as YAML text for reading (the API returns its value; the console does not ship a YAML
 * library). Plain JSON values only: mappings, lists, strings, numbers, booleans and null. Strings
 * that YAML would read as something else are quoted.
 */

const PLAIN = /^[A-Za-z_/][\w ./@{}()$-]*$/;
const RESERVED = /^(true|false|null|yes|no|on|off|~|-?\d[\d.eE+_-]*)$/i;

function scalar(v: unknown): string {
  if (typeof v === 'string')
    return PLAIN.test(v) && !RESERVED.test(v) && !v.endsWith(' ') ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? 'null';
}

const isBlock = (v: unknown) => v !== null && typeof v === 'object' && Object.keys(v).length > 0;

export function toYaml(v: unknown, indent = ''): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return v
      .map((item) => {
        if (!isBlock(item)) return `${indent}- ${isBlock(item) ? '' : emptyOr(item)}`;
        const inner = toYaml(item, `${indent}  `);
        return `${indent}- ${inner.slice(indent.length + 2)}`;
      })
      .join('\n');
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    return entries
      .map(([k, x]) => {
        const key = scalar(k);
        return isBlock(x)
          ? `${indent}${key}:\n${toYaml(x, `${indent}  `)}`
          : `${indent}${key}: ${emptyOr(x)}`;
      })
      .join('\n');
  }
  return scalar(v);
}

const emptyOr = (x: unknown) =>
  Array.isArray(x) ? '[]' : x !== null && typeof x === 'object' ? '{}' : scalar(x);
