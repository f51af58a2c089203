/**
 * The PostgreSQL migration that gives a run row its subject: the `subject` of the event that
 * started the run (its root's `event.subject`; NULL when the event named none), indexed per tenant
 * in the listing's order so a search by subject (exact or a prefix, byte order: COLLATE "C") reads
 * only the runs it finds. Rows written before are filled from their root entry; a root that is not
 * JSON, or whose subject is not a string (a blob reference), leaves NULL. Published: never edited.
 */
import type { Migration } from './migration.ts';

export const MIGRATION_RUN_SUBJECT: Migration = {
  version: 17,
  name: 'a run row keeps its event subject, indexed for search',
  sql: `
    ALTER TABLE runs ADD COLUMN subject TEXT COLLATE "C";
    CREATE OR REPLACE FUNCTION pg_temp.keel_root_subject(payload bytea) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $f$
    DECLARE j jsonb;
    BEGIN
      j := convert_from(payload, 'UTF8')::jsonb;
      IF jsonb_typeof(j -> 'event' -> 'subject') = 'string' THEN
        RETURN nullif(j -> 'event' ->> 'subject', '');
      END IF;
      RETURN NULL;
    EXCEPTION WHEN others THEN
      RETURN NULL;
    END $f$;
    UPDATE runs r SET subject = pg_temp.keel_root_subject(e.payload)
      FROM entries e WHERE e.run_key = r.run_key AND e.seq = 0;
    DROP FUNCTION pg_temp.keel_root_subject(bytea);
    CREATE INDEX runs_by_subject ON runs (tenant, subject, created_at DESC, run_id DESC);
    `,
};
