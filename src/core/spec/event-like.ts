/** The fields of a canonical event that triggers and templates may read. */
export interface EventLike {
  id: string;
  type: string;
  tenant: string;
  source: string;
  subject: string;
  payload: Record<string, unknown>;
  time: string;
}

/** Top-level event fields other than `payload`: strings, with no fields of their own. */
export const EVENT_SCALAR_FIELDS = ['id', 'type', 'tenant', 'source', 'subject', 'time'] as const;

export function isEventScalarField(s: string): s is (typeof EVENT_SCALAR_FIELDS)[number] {
  return (EVENT_SCALAR_FIELDS as readonly string[]).includes(s);
}
