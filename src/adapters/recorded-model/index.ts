export {
  loadRecordedModelProvider,
  type RecordedModelProvider,
  type RecordedResponse,
  recordedModelProvider,
} from './recorded-model-provider.ts';
