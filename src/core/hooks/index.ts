export {
  DIGEST_ENCODINGS,
  type DigestEncoding,
  HOOK_LIMITS,
  HOOK_NAME,
  HOOK_SCHEMES,
  type HookAuth,
  type HookEventMapping,
  type HookRateLimit,
  type HookScheme,
  type HookSpec,
  hookSource,
} from './hook-spec.ts';
export {
  type DeliveryScope,
  HookTemplate,
  parseHookTemplate,
  renderHookTemplate,
} from './hook-template.ts';
export {
  type MappedEvent,
  type Mapping,
  type MappingRefusal,
  mapDelivery,
  readDeliveryBody,
} from './map-delivery.ts';
export { hooksFromValue, parseHooks } from './parse-hooks.ts';
export {
  AUTH_REFUSALS,
  type AuthCheck,
  type AuthRefusal,
  signDelivery,
  verifyDelivery,
} from './verify-delivery.ts';
