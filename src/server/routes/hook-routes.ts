/**
 * Keel API, the hooks this server serves (docs/hooks.md), read-only: the caller's tenant's hooks
 * only, each with its path, scheme, header, the environment variable its secret is read from
 * (never the secret), its limits and its event mapping as written. Another tenant's hooks are not
 * there, not even counted.
 */
import { type HookSpec, HookTemplate } from '../../core/hooks/index.ts';
import { type KeelRoute, ok, route } from './route.ts';

/** A mapping as its file wrote it: each template back to its text. */
function written(v: unknown): unknown {
  if (v instanceof HookTemplate)
    return v.parts.map((p) => (p.kind === 'text' ? p.text : `{{${p.source}}}`)).join('');
  if (Array.isArray(v)) return v.map(written);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, written(x)]));
  return v;
}

/** One hook as the API shows it. */
export function hookView(h: HookSpec) {
  const { secret, ...auth } = h.auth;
  return {
    name: h.name,
    path: `/hooks/${h.name}`,
    source: `hook:${h.name}`,
    ...(h.description ? { description: h.description } : {}),
    auth: { ...auth, secretEnv: secret },
    schema: h.body !== undefined,
    event: written(h.event),
    maxBodyBytes: h.maxBodyBytes,
    rateLimit: h.rateLimit,
  };
}

export const HOOK_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'get',
    path: '/api/hooks',
    operationId: 'listHooks',
    summary: "The hooks this server serves for the caller's tenant (POST /hooks/<name>), read-only",
    tag: 'events',
    auth: true,
    responses: {
      200: '{hooks: [{name, path, source, description?, auth: {scheme, header, secretEnv, ...}, schema, event, maxBodyBytes, rateLimit}]}',
    },
    handle: async ({ p, hooks }) =>
      ok({ hooks: (hooks ?? []).filter((h) => h.tenant === p.tenant).map(hookView) }),
  }),
];
