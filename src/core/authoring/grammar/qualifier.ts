/**
 * A word of the trigger clause that is not its event's noun or verb: "critical" alerts, a ticket
 * "thru chat". Read as a test of the event by read-field-tests.ts (`readQualifiers`).
 */
export interface Qualifier {
  readonly word: string;
  /** The preposition just before it ("on auth", "thru chat"). */
  readonly prep?: string;
  /** Said before the event's noun ("travel expenses"): which ones. */
  readonly modifier: boolean;
  /** Said after "except" / "not" / "other than": the test is that the field is not it. */
  readonly negated?: boolean;
  /** The word said right after it, when that is a qualifier too ("tip" "line"): paired-values.ts. */
  readonly then?: string;
  /** The field it is said to be a value of ("chat channel", "high-priority"). */
  readonly field?: string;
  /** A word the catalog uses: read as it when no field holds it as a value (never asked about). */
  readonly known: boolean;
  /** The trigger clause as written, for the question. */
  readonly clause: string;
}
