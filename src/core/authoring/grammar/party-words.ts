/**
 * The parties of a catalog: the people its tools and events are about ("the guest's profile",
 * "the seller's payouts", a tenant's deposit), named by a role word the catalog itself uses. A
 * party said before an event's noun ("when a guest complains", "seller disputes") says who the
 * event is about, as "customer" and "employee" do, never a class of it: "guest" is no category
 * of complaint. Pure.
 */
import { lemmas } from '../request-words.ts';
import { knownWords, type RequestContext } from './request-context.ts';

/** Words for the people an event can be about (a role, never a thing or a kind of one). */
const ROLES = new Set(
  `guest seller buyer tenant landlord vendor supplier member patient student driver rider courier
  contractor applicant candidate owner client caller shopper traveller traveler agent author reviewer
  merchant subscriber renter borrower lender donor visitor attendee passenger claimant policyholder
  resident homeowner freelancer creator host payee`.split(/\s+/),
);

/** Whether `word` (in any of its forms) is a role an event can be about, in any catalog. */
export function isRoleWord(word: string): boolean {
  return lemmas(word).some((l) => ROLES.has(l));
}

/** Whether `word` (in any of its forms) is a role the catalog names: one of its parties. */
export function isPartyWord(word: string, ctx: RequestContext): boolean {
  const known = knownWords(ctx);
  return lemmas(word).some((l) => ROLES.has(l) && known.has(l));
}
