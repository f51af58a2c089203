export { blobRun, LARGE_ANSWER } from './blob-contract.ts';
export { deploy, setStatus } from './deploy.ts';
export { type FakeSources, fakeSources } from './fake-sources.ts';
export { isCode } from './is-code.ts';
export { buildLedger, extendLedger, FIXED_TIME, sampleEvent } from './ledger-fixtures.ts';
export { type SpyTool, spyTool } from './spy-tools.ts';
export { runStoreContract, type StoreFactory } from './store-contract.ts';
export { withStoreFile } from './temp-store.ts';
