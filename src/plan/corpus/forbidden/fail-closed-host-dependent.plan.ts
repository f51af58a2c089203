// Fail closed: garbage-collection timing, locale and time zone, and where the module was loaded from.
export const ref = new WeakRef({}); // expect: WeakRef
export const registry = new FinalizationRegistry(() => undefined); // expect: FinalizationRegistry
export const zone = Intl.DateTimeFormat().resolvedOptions().timeZone; // expect: Intl
export const url = import.meta.url; // expect: import.meta
