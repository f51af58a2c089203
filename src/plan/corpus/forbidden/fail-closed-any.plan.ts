// Fail closed: where the checker knows nothing (any), calls and sensitive member names are refused.
const data = JSON.parse('{"f": null}');
export const a = data.f(); // expect: data.f()
export const b = JSON.parse('{}').now; // expect: .now
export const c = (Math as any).random(); // expect: Math as a value
function untyped(x) { // noImplicitAny is not the check's business; calling x is.
  return x(); // expect: x()
}
export const d = untyped;
