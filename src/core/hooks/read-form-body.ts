/**
 * A form-encoded delivery body (`application/x-www-form-urlencoded`, as many providers send) read
 * as the object the hook's body schema and templates see: `name=value` pairs joined by `&`, `+` a
 * space, `%XX` bytes of UTF-8. A name given once maps to its text; a name given several times to
 * the list of its texts, in order. Names are kept as written (`a[b]` is the key "a[b]": nothing is
 * expanded), values stay text (a field holding JSON is not parsed). Strict where the WHATWG parser
 * is lenient: a malformed `%` escape or bytes that are not UTF-8 are refused, naming the pair.
 * Pure; the signature was already checked over the raw bytes.
 */

/** The media type of a form body. */
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

export type FormRead =
  | { readonly ok: true; readonly value: Record<string, string | string[]> }
  | { readonly ok: false; readonly field: string; readonly message: string };

const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

/** Reads a form body's text (already UTF-8 decoded) to its object. */
export function readFormBody(text: string, maxKeys: number): FormRead {
  const fields = new Map<string, string | string[]>();
  const pairs = text.split('&');
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    if (pair === '') continue; // `a=1&&b=2`, a trailing `&`: nothing there, as every parser reads it
    const eq = pair.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decode(eq < 0 ? pair : pair.slice(0, eq));
      value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    } catch {
      return {
        ok: false,
        field: '(body)',
        message: `form pair ${i + 1} (${JSON.stringify(pair.slice(0, 40))}): a malformed %-escape or bytes that are not UTF-8`,
      };
    }
    const had = fields.get(name);
    if (had === undefined) {
      if (fields.size >= maxKeys)
        return { ok: false, field: '(body)', message: `more than ${maxKeys} form fields` };
      fields.set(name, value);
    } else if (Array.isArray(had)) had.push(value);
    else fields.set(name, [had, value]);
  }
  return { ok: true, value: Object.fromEntries(fields) };
}

/** Whether a Content-Type names a form body; `charset`, when given, must be UTF-8. */
export function formMediaType(contentType: string | undefined): 'form' | 'other' | { charset: string } {
  if (contentType === undefined) return 'other';
  const [type, ...params] = contentType.split(';').map((p) => p.trim());
  if (type!.toLowerCase() !== FORM_MEDIA_TYPE) return 'other';
  for (const p of params) {
    const [k, v] = p.split('=').map((x) => x.trim());
    if (k?.toLowerCase() !== 'charset') continue;
    const charset = (v ?? '').replace(/^"|"$/g, '').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return { charset: (v ?? '').slice(0, 40) };
  }
  return 'form';
}
