/**
 * The discovery documents at `/.well-known/openwop`: the v1-shaped document (no version header;
 * what the sample clients read during the v1 -> v2 overlap) and the closed v2 root (with
 * `OpenWOP-Version: 2`). Both claim only what Keel does: the fixtures it installs, replay and
 * branch forks (with the effect-seam manifest), idempotency keys, approval interrupts, the four
 * nondeterminism sources every run records in its ledger (clock, random, id, env), and the one
 * limit every run is held to (maxNodeExecutions: the engine's step ceiling). Keel bounds no run by
 * wall-clock time (a run may wait days for a person), so it advertises no maxRunDurationMs.
 */
import { ENGINE_VERSION, MAX_STEPS_PER_RUN } from '../app/index.ts';
import { fixtureDefinitions } from './fixtures.ts';

/** Exactly the sources the engine records as `source.drawn` entries. */
export const DECLARED_SOURCES = ['clock', 'random', 'id', 'env'] as const;

export const PROTOCOL_VERSIONS = ['1.0', '2.0'] as const;

const implementation = { name: 'keel', version: ENGINE_VERSION.split('/')[1] ?? '0', vendor: 'keel' };

/** What every run is held to: the walk refuses step MAX_STEPS_PER_RUN + 1 (walk.ts). */
const LIMITS = { maxNodeExecutions: MAX_STEPS_PER_RUN };

/** Where the effect-seam manifest is served (replay.md §The surface: a constant). */
export const EFFECT_SEAMS_PATH = '/host/effect-seams';

/** An experimental family record of the v2 root. */
function record(witness: string, facets: Record<string, unknown> = {}) {
  return { status: 'experimental', since: '2.0', until: '2.1', witness, ...facets };
}

/** The audit-log-integrity facets (RFC 0224/0218), the same at both majors. */
function auditFacets(audit: AuditPublication) {
  return {
    checkpointSignatureAlgorithm: 'ed25519',
    checkpointPublicKey: audit.publicKey,
    checkpointIntervalEntries: CHECKPOINT_INTERVAL_ENTRIES,
    checkpointIntervalSeconds: audit.intervalSeconds,
  };
}

/**
 * The v1 document. With signed checkpoints (`audit`) it claims the `openwop-audit-log-integrity`
 * profile under `auth` (auth-profiles.md), and `/v1/audit/verify` is served; without, neither.
 */
export function discoveryV1(audit?: AuditPublication): Record<string, unknown> {
  return {
    protocolVersion: '1.0',
    protocolVersions: [...PROTOCOL_VERSIONS],
    preferredVersion: '1.0',
    implementation,
    engineVersion: 1,
    eventLogSchemaVersion: 3,
    supportedEnvelopes: ['clarification.request'],
    schemaVersions: {},
    limits: { clarificationRounds: 0, schemaRounds: 0, envelopesPerTurn: 1, ...LIMITS },
    fixtures: [...fixtureDefinitions().keys()],
    interrupt: { supported: true, kinds: ['approval'] },
    replay: {
      supported: true,
      fork: true,
      modes: ['replay', 'branch'],
      sideEffectSuppression: 'recorded-outcome',
    },
    idempotency: { supported: true },
    nondeterminismPolicy: { declared: true, sources: [...DECLARED_SOURCES] },
    ...(audit
      ? {
          auth: {
            profiles: [AUDIT_PROFILE],
            auditLogIntegrity: { hashChain: true, ...auditFacets(audit) },
          },
        }
      : {}),
  };
}

/** The v1 profile name of audit-log integrity. */
export const AUDIT_PROFILE = 'openwop-audit-log-integrity';

/** What `keel serve` publishes of its periodic checkpoints (OpenWOP's audit-log-integrity facets). */
export interface AuditPublication {
  /** The checkpoint public key: base64 of its DER SPKI. */
  readonly publicKey: string;
  /** How often the server checkpoints every tenant whose runs moved. */
  readonly intervalSeconds: number;
}

/**
 * `checkpointIntervalEntries` counts what one checkpoint anchors on OpenWOP's audit surface, where
 * a checkpoint's atSequence is its own seq: consecutive ones differ by exactly 1.
 */
const CHECKPOINT_INTERVAL_ENTRIES = 1;

export function discoveryV2(audit?: AuditPublication): Record<string, unknown> {
  return {
    protocolVersion: '2.0',
    protocolVersions: [...PROTOCOL_VERSIONS],
    preferredVersion: '1.0',
    implementation,
    engineVersion: 1,
    eventLogSchemaVersion: 3,
    fixtures: [...fixtureDefinitions().keys()],
    limits: { status: 'stable', since: '2.0', witness: 'witnessable-gated', ...LIMITS },
    eventLog: record('claims-check', { crossEngineOrdering: { orderingModel: 'per-run-sequence' } }),
    // tokenAlgs is required by the facet schema (minItems 1; hs256 is the only member).
    interrupt: record('witnessable-unaided', { tokenAlgs: ['hs256'], refKinds: ['principal'] }),
    runList: record('witnessable-unaided', { maxPageSize: 100, filters: ['workflowId', 'status'] }),
    replay: record('witnessable-unaided', {
      modes: ['replay', 'branch'],
      effectSeamsManifest: EFFECT_SEAMS_PATH,
    }),
    idempotency: record('witnessable-unaided', { crossRegion: 'single-region' }),
    nondeterminismPolicy: record('witnessable-gated', { declared: true, sources: [...DECLARED_SOURCES] }),
    ...(audit
      ? {
          auditLogIntegrity: record('witnessable-gated', auditFacets(audit)),
        }
      : {}),
  };
}
