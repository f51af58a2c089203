export { DirectoryWitness } from './directory-witness.ts';
