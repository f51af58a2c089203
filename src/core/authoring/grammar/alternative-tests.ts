/**
 * Tests of one field for two values ("on checkout or search", "for auth and search alerts") can
 * never both hold: they are alternatives, joined with "or". Other tests are kept as they are. Pure.
 */
export function alternatives(tests: readonly string[]): string[] {
  const eq = (t: string) => /^payload\.([A-Za-z_][A-Za-z0-9_]*) == ("(?:[^"\\]|\\.)*")$/.exec(t);
  const out: string[] = [];
  const done = new Set<string>();
  for (const t of tests) {
    const m = eq(t);
    if (!m) {
      out.push(t);
      continue;
    }
    if (done.has(m[1]!)) continue;
    const same = [...new Set(tests.filter((x) => eq(x)?.[1] === m[1]))];
    done.add(m[1]!);
    out.push(same.length > 1 ? `(${same.join(' or ')})` : t);
  }
  return out;
}
