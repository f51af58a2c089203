/** A published PostgreSQL migration: applied once, in order, never edited (schema.ts). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}
