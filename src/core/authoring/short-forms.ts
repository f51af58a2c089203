/**
 * Short forms people type for a noun a catalog spells out ("urgent tix", "access req", "refund
 * reqs", "the mgr's sign-off"): each is read as the full word by `lemmas` (request-words.ts), so a
 * trigger, a field test or a tool's words match it the way they match the full word. Only forms
 * that stand for one word in any catalog belong here (never one that is also a word of its own:
 * "inv" may be an invoice or an inventory, "app" an application or an approval, "exp" an expense or an expiry).
 */
export const SHORT_FORMS: ReadonlyMap<string, string> = new Map([
  ['tix', 'tickets'],
  ['tkt', 'ticket'],
  ['tkts', 'tickets'],
  ['req', 'request'],
  ['reqs', 'requests'],
  ['rqst', 'request'],
  ['rqsts', 'requests'],
  ['acct', 'account'],
  ['accts', 'accounts'],
  ['mgr', 'manager'],
  ['mgrs', 'managers'],
  ['dept', 'department'],
  ['depts', 'departments'],
  ['sev', 'severity'],
]);
