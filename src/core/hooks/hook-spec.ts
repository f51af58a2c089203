/**
 * A hook: a declared webhook endpoint, `POST /hooks/<name>` (docs/hooks.md). What a hooks file
 * declares, checked (parse-hooks.ts): the one tenant its deliveries belong to, how a delivery is
 * authenticated (an HMAC-SHA256 over the raw body in a common scheme, or a shared-secret header),
 * the JSON Schema its body must meet, how a delivery maps to a canonical event, and its body size
 * and rate limits. A secret is named here (an environment variable), never held: its value is read
 * at the edge and handed to verification alone.
 */
import type { JsonSchema } from '../tools/index.ts';
import type { HookTemplate } from './hook-template.ts';

/** The schemes a delivery may be authenticated by. */
export const HOOK_SCHEMES = ['hmac-sha256', 'hmac-sha256-timestamped', 'shared-secret'] as const;
export type HookScheme = (typeof HOOK_SCHEMES)[number];

/** How a plain HMAC digest is written in its header. */
export const DIGEST_ENCODINGS = ['hex', 'base64'] as const;
export type DigestEncoding = (typeof DIGEST_ENCODINGS)[number];

export type HookAuth =
  /** `<header>: [prefix]<digest>`: HMAC-SHA256 of the raw body (a code host's `X-Hub-Signature-256: sha256=<hex>`). */
  | {
      readonly scheme: 'hmac-sha256';
      readonly header: string;
      readonly secret: string;
      readonly encoding: DigestEncoding;
      readonly prefix: string;
    }
  /**
   * `<header>: t=<unix seconds>,v1=<hex>[,v1=...]`: HMAC-SHA256 of `<t>.<raw body>` (a payment
   * provider's scheme), refused when `t` is further than `toleranceSeconds` from now either way.
   */
  | {
      readonly scheme: 'hmac-sha256-timestamped';
      readonly header: string;
      readonly secret: string;
      readonly toleranceSeconds: number;
    }
  /** `<header>: <secret>`: the shared secret itself, compared in constant time. */
  | { readonly scheme: 'shared-secret'; readonly header: string; readonly secret: string };

/** How a delivery becomes a canonical event: each field a template over `body` and `headers`. */
export interface HookEventMapping {
  readonly type: HookTemplate;
  readonly id: HookTemplate;
  readonly time: HookTemplate;
  readonly subject?: HookTemplate;
  /** A JSON value whose string leaves are templates (`{{body}}`: the whole body). */
  readonly payload?: unknown;
}

export interface HookRateLimit {
  /** Deliveries per second, refilled continuously. */
  readonly perSecond: number;
  /** The most deliveries accepted at once after a quiet spell. */
  readonly burst: number;
}

export interface HookSpec {
  readonly name: string;
  readonly tenant: string;
  readonly description?: string;
  readonly auth: HookAuth;
  /** The JSON Schema the parsed body must meet (absent: any JSON value). */
  readonly body?: JsonSchema;
  readonly event: HookEventMapping;
  readonly maxBodyBytes: number;
  readonly rateLimit: HookRateLimit;
}

/** Defaults and bounds of a hook's numbers. */
export const HOOK_LIMITS = {
  maxBodyBytes: { default: 256 * 1024, min: 1, max: 1024 * 1024 },
  toleranceSeconds: { default: 300, min: 1, max: 86_400 },
  perSecond: { default: 50, min: 1, max: 100_000 },
  burst: { default: 100, min: 1, max: 100_000 },
} as const;

/** A hook's name: its path segment, lower-case. */
export const HOOK_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The event source a hook's deliveries carry: `(source, id)` names one delivery. */
export function hookSource(name: string): string {
  return `hook:${name}`;
}
