/**
 * The OpenWOP conformance fixtures Keel runs: definitions written from the documented behaviour
 * (`fixtures/*.json`), compiled to Keel specs and published as DRAFT into a tenant on first use.
 * Publishing the same spec again is a no-op, so seeding is idempotent across restarts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Keel } from '../app/keel.ts';
import { specHash, type WorkflowSpec } from '../core/spec/index.ts';
import type { VersionRecord } from '../ports/index.ts';
import { compileDefinition, type OpenWopDefinition, parseDefinition } from './definition.ts';

const DIR = new URL('./fixtures/', import.meta.url);

/** Who the installed fixtures are published by (their version records say so). */
export const FIXTURE_PUBLISHER = 'keel:openwop-fixtures';

let cache: Map<string, OpenWopDefinition> | undefined;

/** The fixture definitions by workflow id, sorted by id. */
export function fixtureDefinitions(): ReadonlyMap<string, OpenWopDefinition> {
  if (!cache) {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    cache = new Map(
      files.map((f) => {
        const def = parseDefinition(JSON.parse(readFileSync(new URL(f, DIR), 'utf8')));
        return [def.id, def];
      }),
    );
  }
  return cache;
}

/**
 * Keel seeds its fixtures, the tenant does not publish them: conformance-nondeterminism's
 * `env.KEEL_REGION` is published whether or not the operator exposed it to the tenant, and reads
 * as unset (null) in its runs unless exposed.
 */
export async function seedFixtures(keel: Keel, tenant: string): Promise<void> {
  for (const def of fixtureDefinitions().values()) {
    await keel.workflows.publishObject(tenant, compileDefinition(def), FIXTURE_PUBLISHER, {
      allowUnexposedEnv: true,
    });
  }
}

/**
 * Whether `version` is one of Keel's own conformance fixtures exactly as seeded (by id, publisher
 * and content). They are published as DRAFT, yet OpenWOP runs them for real: their core tools
 * act on nothing outside the run, and conformance needs their approvals asked of a person.
 */
export function isSeededFixture(version: VersionRecord): boolean {
  const def = fixtureDefinitions().get(version.workflowId);
  return (
    def !== undefined &&
    version.publishedBy === FIXTURE_PUBLISHER &&
    version.specHash === specHash(compileDefinition(def) as unknown as WorkflowSpec)
  );
}
