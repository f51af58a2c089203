/**
 * The SQLite migration that gives a run row its subject: the `subject` of the event that started
 * the run (its root's `event.subject`; NULL when the event named none), indexed per tenant in the
 * listing's order so a search by subject (exact or a prefix) reads only the runs it finds. Rows
 * written before are filled from their root entry; a root that is not JSON, or whose subject is not
 * a string (a blob reference), leaves NULL. Published: never edited (schema.ts lists it).
 */
export const MIGRATION_RUN_SUBJECT = `
  ALTER TABLE runs ADD COLUMN subject TEXT;
  UPDATE runs SET subject = (
    SELECT nullif(json_extract(p, '$.event.subject'), '')
      FROM (SELECT CAST(e.payload AS TEXT) AS p FROM entries e WHERE e.run_key = runs.run_key AND e.seq = 0)
     WHERE (CASE WHEN json_valid(p) THEN json_type(p, '$.event.subject') END) = 'text'
  );
  CREATE INDEX runs_by_subject ON runs (tenant, subject, created_at DESC, run_id DESC);
`;
