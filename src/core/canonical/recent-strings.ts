/**
 * A small memo of values computed from large strings, by the string's value: the most recently
 * used first out last, bounded in entries and in the strings' total length. For work that is a
 * pure function of a string and costly for large ones (a 100 KiB answer is encoded and hashed in
 * each entry of its run), so a value met again costs a lookup. Only ever a cache: a miss computes.
 */
export class RecentStrings<V> {
  private readonly map = new Map<string, V>();
  private length = 0;

  constructor(
    /** Strings shorter than this are not kept (computing is cheap next to the lookup). */
    readonly minLength: number,
    readonly maxEntries: number,
    /** The most UTF-16 units all kept strings together may hold. */
    readonly maxTotalLength: number,
  ) {}

  get(s: string): V | undefined {
    if (s.length < this.minLength) return undefined;
    const v = this.map.get(s);
    if (v !== undefined) {
      // Most recently used last: Map iterates in insertion order.
      this.map.delete(s);
      this.map.set(s, v);
    }
    return v;
  }

  set(s: string, v: V): void {
    if (s.length < this.minLength || s.length > this.maxTotalLength || this.map.has(s)) return;
    this.map.set(s, v);
    this.length += s.length;
    for (const k of this.map.keys()) {
      if (this.map.size <= this.maxEntries && this.length <= this.maxTotalLength) break;
      this.map.delete(k);
      this.length -= k.length;
    }
  }
}
