export { Worker, type WorkerEvent, type WorkerOptions, type WorkerStats } from './worker.ts';
