// expect: script
// Fail closed: without import or export, top-level names would be global across checked files.
const scriptOnlyValue = 1;
scriptOnlyValue;
