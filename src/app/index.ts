export { createKeel, type EmitResult, type HistoryLine, type Keel, type KeelConfig } from './keel.ts';
