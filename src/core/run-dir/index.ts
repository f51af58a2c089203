export {
  entryLine,
  type FileProblem,
  fileDigest,
  jsonFile,
  ledgerFile,
  type Manifest,
  type ManifestRun,
  manifestContentHash,
  parseLedgerFile,
  RUN_DIR_FORMAT,
  type RunDirFiles,
  runDirName,
  type SpecFile,
  sealManifest,
  type WritsFile,
} from './run-dir-format.ts';
export {
  type RunDirProblem,
  type RunDirReport,
  type RunDirRunReport,
  verifyRunDir,
} from './verify-run-dir.ts';
