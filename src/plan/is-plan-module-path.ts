/** True for paths `publish` and `validate` treat as plan modules rather than YAML or JSON specs. */
export function isPlanModulePath(path: string): boolean {
  return path.endsWith('.plan.ts');
}
