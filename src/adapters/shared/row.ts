/**
 * A row as both stores' drivers give it: column names to values. The one type every row mapper of
 * `adapters/shared` and every port of both stores share; it sits below them all, importing nothing.
 */
export type Row = Record<string, unknown>;
