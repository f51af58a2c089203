export { goneLeaseOwners, goneOwnersAmong, leaseOwnerName, processExists } from './lease-owners.ts';
export { systemSources } from './system-sources.ts';
