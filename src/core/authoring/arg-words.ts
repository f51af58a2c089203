/**
 * A value as written in a spec, in words for read-backs: a template names where the value comes
 * from ("step grant's expiresAt", "the event's subject"), text is quoted, a model-chosen argument
 * says so. Used by explain-spec.ts for arguments and explain-flow.ts for a wait's `until`. Pure.
 */

const WHOLE_TEMPLATE = /^\{\{\s*([^{}]+?)\s*\}\}$/;

/** The event field a value reads whole (`{{event.payload.<field>}}`), else undefined. */
export function payloadFieldOf(v: unknown): string | undefined {
  return typeof v === 'string'
    ? /^\{\{event\.payload\.([A-Za-z_][A-Za-z0-9_]*)\}\}$/.exec(v)?.[1]
    : undefined;
}

/** An argument value in words: a template names where the value comes from; text is quoted. */
export function argWords(v: unknown): string {
  if (typeof v === 'string') {
    const m = WHOLE_TEMPLATE.exec(v);
    if (m) return refWords(m[1]!);
    const text = v.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (_all, ref: string) => `<${refWords(ref)}>`);
    return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && '$model' in v) {
    const prompt = (v as { $model?: { prompt?: unknown } }).$model?.prompt;
    return `chosen by a model${typeof prompt === 'string' ? ` (asked: ${JSON.stringify(prompt.length > 60 ? `${prompt.slice(0, 57)}...` : prompt)})` : ''}`;
  }
  return JSON.stringify(v);
}

function refWords(ref: string): string {
  const parts = ref.split('.');
  if (parts[0] === 'event') {
    if (parts[1] === 'payload' && parts.length > 2) return `the event's ${parts.slice(2).join('.')}`;
    return `the event's ${parts.slice(1).join('.')}`;
  }
  if (parts[0] === 'steps' && parts.length >= 3) {
    const rest = parts.slice(3).join('.');
    return `step ${parts[1]}'s ${rest === '' ? 'output' : rest}`;
  }
  if (parts[0] === 'env') return `the environment's ${parts.slice(1).join('.')}`;
  if (['clock', 'random', 'id'].includes(parts[0]!)) return `the recorded ${ref}`;
  // Any other root is a loop's item, by its as: name ("the line's amount").
  const rest = parts.slice(1).join('.');
  return rest === '' ? `the ${parts[0]}` : `the ${parts[0]}'s ${rest}`;
}
