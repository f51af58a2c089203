export { type AttenuateResult, attenuate, type ChildRequest, subsetViolations } from './attenuate.ts';
export { checkWrit, type WritCheck, type WritCheckInput, type WritProposal } from './check-writ.ts';
export { keyIdOf, signWrit, writSignatureValid } from './sign-writ.ts';
export { type ChainResult, type TrustedKey, verifyWritChain } from './verify-writ-chain.ts';
export {
  EFFECT_RANK,
  type SignedWrit,
  type WritBody,
  type WritBudget,
  WritCode,
  type WritViolation,
  writHash,
} from './writ.ts';
export {
  addBudget,
  coversBudget,
  isWritBudget,
  isZeroBudget,
  stepCharge,
  subtractBudget,
  ZERO_BUDGET,
} from './writ-budget.ts';
export {
  isSignedWrit,
  isWritBody,
  type ShapeProblem,
  signedWritProblems,
  writBodyProblems,
} from './writ-shape.ts';
